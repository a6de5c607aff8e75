"""HTTP for the remote adapters: one client, conditional requests, pagination, rate limits, clear errors.

Tokens come only from the environment passed in (`GITHUB_TOKEN`, `JIRA_TOKEN`), travel only in request
headers and are never put in a URL, a message, a log or the cache. A server may echo them back (in a
body, a header, a reason phrase): every answer is scrubbed of the environment's secrets here, before
anything reads it, and URLs lose their userinfo before they are quoted or kept. A rate-limited answer (429, or 403
with `X-RateLimit-Remaining: 0`) is waited out when `Retry-After` / `X-RateLimit-Reset` is within the
caller's bound, and otherwise reported with the time it resets.
"""

from __future__ import annotations

import functools
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from hz.secrets import Secrets, redact_url, secrets_of
from hz.sources.base import SourceError
from hz.sources.window import iso

if TYPE_CHECKING:
    import httpx

USER_AGENT = "hz-sources/1"
TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Service:
    """Who is being asked, for messages: the service's name and the variable its token comes from."""

    name: str
    token_env: str


@dataclass(frozen=True)
class Answer:
    status: int  # 200 or 304
    body: bytes
    headers: Mapping[str, str]
    next_url: str | None  # the `Link: <…>; rel="next"` page, if any
    secrets: Secrets | None = None  # what was scrubbed from the body; also scrubbed from parsed strings

    def json(self) -> Any:
        import orjson

        try:
            value = orjson.loads(self.body)
        except orjson.JSONDecodeError:
            return None
        # The body was scrubbed as bytes; only a secret written with escapes (`\u0067hp_…`, `https:\/\/`)
        # gets past that, and shows once the text is decoded, so only then are the strings walked.
        if self.secrets is None or (b"\\u" not in self.body and b"\\/" not in self.body):
            return value
        return self.secrets.scrub_value(value)


def client(headers: Mapping[str, str] | None = None) -> httpx.Client:
    import httpx

    return httpx.Client(
        timeout=TIMEOUT_S,
        follow_redirects=True,
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        trust_env=False,
        verify=_tls(),
    )


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context per process: building it loads the CA bundle, a tenth of a second each time."""
    import httpx

    return httpx.create_ssl_context()


def get(
    session: httpx.Client,
    url: str,
    service: Service,
    *,
    params: Mapping[str, str | int] | None = None,
    etag: str | None = None,
    last_modified: str | None = None,
    max_wait_s: float = 5.0,
    sleep: Callable[[float], None] = time.sleep,
    secrets: Secrets | None = None,
) -> Answer:
    """GET `url`; 200 or 304 come back, everything else is a SourceError naming the status.

    `secrets` (by default those of this process's environment) are scrubbed from all the answer holds.
    """
    import httpx

    secrets = secrets_of() if secrets is None else secrets
    headers = {}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    for _attempt in range(3):
        try:
            response = session.get(url, params=params, headers=headers)
        except httpx.HTTPError as exc:
            raise SourceError(
                "unavailable", f"could not reach {service.name} at {_plain(url)} ({type(exc).__name__})"
            ) from None
        wait = _rate_limit_wait(response)
        if wait is None:
            return _answer(response, url, service, secrets)
        if wait > max_wait_s:
            raise _rate_limited(response, url, service, secrets)
        sleep(max(wait, 0.0))
    raise _rate_limited(response, url, service, secrets)


def _answer(response: httpx.Response, url: str, service: Service, secrets: Secrets) -> Answer:
    status = response.status_code
    if status in (200, 304):
        link = response.links.get("next", {}).get("url")
        body = secrets.scrub_bytes(response.content) if status == 200 else b""
        headers = {k: secrets.scrub(v) for k, v in response.headers.items()}
        return Answer(status, body, headers, secrets.scrub(link) if link else None, secrets)
    where = _plain(url)
    reason = secrets.scrub(f"{status} {response.reason_phrase}".strip())
    if status == 401:
        raise SourceError(
            "unauthorized",
            f"{service.name} refused the request for {where} ({reason})",
            hint=f"set {service.token_env} to a token that may read it",
        )
    if status == 403:
        raise SourceError(
            "forbidden",
            f"{service.name} forbids reading {where} ({reason})",
            hint=f"check that the token in {service.token_env} has access to it",
        )
    if status == 404:
        raise SourceError(
            "not-found", f"{service.name} has nothing at {where} ({reason})", hint="check the source's name"
        )
    if status >= 500:
        raise SourceError(
            "server-error",
            f"{service.name} failed to answer for {where} ({reason})",
            hint="it is probably temporary; hz tries again at the next recheck",
        )
    raise SourceError("bad-source", f"{service.name} rejected the request for {where} ({reason})")


def _rate_limit_wait(response: httpx.Response) -> float | None:
    """Seconds to wait before retrying, when the answer says we were rate limited; None otherwise."""
    status = response.status_code
    limited = status == 429 or (status == 403 and response.headers.get("X-RateLimit-Remaining") == "0")
    if status == 403 and "Retry-After" in response.headers:
        limited = True  # GitHub's secondary rate limit
    if not limited:
        return None
    retry_after = response.headers.get("Retry-After")
    if retry_after:
        return _seconds_until(retry_after)
    reset = response.headers.get("X-RateLimit-Reset")
    if reset and reset.isdigit():
        return int(reset) - time.time()
    return 60.0


def _seconds_until(value: str) -> float:
    if value.strip().isdigit():
        return float(value.strip())
    try:
        return (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds()
    except (TypeError, ValueError):
        return 60.0


def _rate_limited(response: httpx.Response, url: str, service: Service, secrets: Secrets) -> SourceError:
    reset = response.headers.get("X-RateLimit-Reset")
    when = ""
    if reset and reset.isdigit():
        when = f"; it resets at {iso(datetime.fromtimestamp(int(reset), UTC))}"
    elif response.headers.get("Retry-After"):
        when = f"; retry after {secrets.scrub(response.headers['Retry-After'])} s"
    return SourceError(
        "rate-limited",
        f"{service.name} rate limit reached reading {_plain(url)} ({response.status_code}){when}",
        hint="hz tries again at the next recheck; set a longer `recheck` on inputs that poll this often",
    )


def _plain(url: str) -> str:
    """The URL without its query string or userinfo: short, and never carrying anything a user pasted into it."""
    return redact_url(url.split("?", 1)[0])
