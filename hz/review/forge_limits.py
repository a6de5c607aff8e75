"""GitHub's rate-limit answers, read by the shared client's reader (`hz.http.ratelimit`)."""

from hz.http.ratelimit import rate_limit, retry_seconds

__all__ = ["rate_limit", "retry_seconds"]
