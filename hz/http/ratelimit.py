"""Reading rate-limit answers: whether an answer is one, how long to wait, and when to try again.

GitHub's rules, which Jira and feed servers follow in part (429 with `Retry-After`).

The primary limit is a 403 or 429 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` (epoch
seconds); the secondary limit a 403 or 429 with `Retry-After` (seconds, or an HTTP date), or a 429
without it, which GitHub's documentation says to treat as "wait at least a minute". Header values are
read defensively: a number is at most 15 digits, a negative wait is no wait, anything else is unknown,
and a reset too far off to print says so instead of raising.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

_INT = re.compile(r"\s*(-?\d{1,15})\s*")


def rate_limit(response: httpx.Response, now: float) -> tuple[float | None, str] | None:
    """None when `response` is no rate-limit answer; else the seconds to wait (None: too long or unknown)
    and a phrase saying when to try again."""
    status = response.status_code
    if status not in (403, 429):
        return None
    headers = response.headers
    retry_after = headers.get("retry-after")
    if retry_after is not None:  # the secondary limit
        seconds = retry_seconds(retry_after, now)
        return seconds, "try again in a minute or more" if seconds is None else f"retry after {seconds:.0f} s"
    if headers.get("x-ratelimit-remaining", "").strip() == "0":  # the primary limit
        reset = _integer(headers.get("x-ratelimit-reset"))
        if reset is None:
            return None, "it resets within the hour"
        return max(0.0, reset - now), f"it resets at {_at(reset)}"
    if status == 429 or "secondary rate limit" in response.text.lower():
        return None, "the server asks to wait at least a minute"  # its documented rule without a Retry-After
    return None  # a plain 403: forbidden


def retry_seconds(value: str, now: float) -> float | None:
    """`Retry-After` in seconds from now: a number (negative counts as 0) or an HTTP date; None if garbled."""
    number = _integer(value)
    if number is not None:
        return float(max(0, number))
    try:
        moment = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, moment.timestamp() - now)


def _integer(value: str | None) -> int | None:
    found = _INT.fullmatch(value or "")
    return int(found.group(1)) if found else None


def _at(epoch: int) -> str:
    try:
        return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):
        return "a time the server did not say clearly"
