"""HTTP for the remote adapters: one client, conditional requests, pagination, rate limits, clear errors.

Tokens come only from the environment passed in (`GITHUB_TOKEN`, `JIRA_TOKEN`), travel only in request
headers and are never put in a URL, a message, a log or the cache. A server may echo them back (in a
body, a header, a reason phrase): every answer is scrubbed of the environment's secrets here, before
anything reads it, and URLs lose their userinfo before they are quoted or kept. A rate-limited answer (429, or 403
with `X-RateLimit-Remaining: 0`) is waited out when `Retry-After` / `X-RateLimit-Reset` is within the
caller's bound, and otherwise reported with the time it resets.

A server decides how fast and how much it sends, so every request has an overall deadline (not only a
timeout per read: a byte a second would hold a fetch forever) and a size cap that holds for the bytes on
the wire and again for what they inflate to (a 300 KB gzip can hold 300 MB). Bodies are inflated here,
chunk by chunk with the room left as the bound, so a bomb costs its cap, not its size. Both limits come
from the environment (`HZ_FETCH_DEADLINE_S`, `HZ_FETCH_MAX_BYTES`).
"""

from __future__ import annotations

import functools
import math
import os
import ssl
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
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
DEADLINE_S = 60.0  # one request, from connecting to its last byte
MAX_BYTES = 32 * 1024 * 1024  # a body, as sent and as inflated: a big feed or API page is a few MB


@dataclass(frozen=True)
class Limits:
    deadline_s: float = DEADLINE_S
    max_bytes: int = MAX_BYTES


def limits_from(environ: Mapping[str, str]) -> Limits:
    """The limits the environment sets; a value that is no positive number leaves the default."""
    return Limits(
        _positive(environ.get("HZ_FETCH_DEADLINE_S"), DEADLINE_S),
        int(_positive(environ.get("HZ_FETCH_MAX_BYTES"), MAX_BYTES)),
    )


def _positive(text: str | None, default: float) -> float:
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


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
    url: str = ""  # where the body came from, after redirects (a feed's relative links resolve against it)

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
    limits: Limits | None = None,
) -> Answer:
    """GET `url`; 200 or 304 come back, everything else is a SourceError naming the status.

    `secrets` (by default those of this process's environment) are scrubbed from all the answer holds.
    """
    import httpx

    secrets = secrets_of() if secrets is None else secrets
    limits = limits_from(os.environ) if limits is None else limits
    headers = {"Accept-Encoding": "gzip, deflate"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    for _attempt in range(3):
        deadline = time.monotonic() + limits.deadline_s
        try:
            with session.stream(
                "GET", url, params=params, headers=headers, timeout=min(TIMEOUT_S, limits.deadline_s)
            ) as response:
                wait = _rate_limit_wait(response)
                if wait is None:
                    body = _read_body(response, url, service, limits, deadline) if response.status_code == 200 else b""
                    if response.status_code == 304 and not (etag or last_modified):
                        raise _unasked_304(url, service)
                    return _answer(response, body, url, service, secrets)
        except httpx.HTTPError as exc:
            raise SourceError(
                "unavailable", f"could not reach {service.name} at {_plain(url)} ({type(exc).__name__})"
            ) from None
        if wait > max_wait_s:
            raise _rate_limited(response, url, service, secrets)
        sleep(max(wait, 0.0))
    raise _rate_limited(response, url, service, secrets)


def _read_body(response: httpx.Response, url: str, service: Service, limits: Limits, deadline: float) -> bytes:
    """The body, inflated, within the deadline and the size cap (SourceError past either)."""
    body = bytearray()
    pieces = _inflated(response.iter_raw(), response.headers.get("Content-Encoding", ""), limits.max_bytes)
    try:
        for piece in pieces:
            body += piece
            _check(body, response, url, service, limits, deadline)
    except _Overflow:
        raise _too_large(url, service, limits) from None
    return bytes(body)


class _Overflow(Exception):
    """Inflating stopped at the cap with input left."""


def _check(
    body: bytearray, response: httpx.Response, url: str, service: Service, limits: Limits, deadline: float
) -> None:
    if time.monotonic() > deadline:
        raise SourceError(
            "unavailable",
            f"{service.name} took longer than {limits.deadline_s:g} s to send {_plain(url)}",
            hint="set HZ_FETCH_DEADLINE_S to allow more; hz tries again at the next recheck",
        )
    if len(body) > limits.max_bytes or response.num_bytes_downloaded > limits.max_bytes:
        raise _too_large(url, service, limits)


def _inflated(chunks: Iterator[bytes], encoding: str, cap: int) -> Iterator[bytes]:
    """`chunks` decoded by their Content-Encoding, never inflating more than `cap` + 1 bytes in all."""
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        yield from chunks
        return
    if coding not in ("gzip", "x-gzip", "deflate"):
        raise SourceError("bad-source", f"the answer is encoded as {coding[:40]!r}, which hz does not read")
    inflater = zlib.decompressobj(47)  # 47: a gzip or a zlib header, whichever the stream has
    made = 0
    try:
        for chunk in chunks:
            piece = inflater.decompress(chunk, cap + 1 - made)
            made += len(piece)
            yield piece
            if inflater.unconsumed_tail:  # the cap stopped it: what is left would inflate past it
                raise _Overflow
        yield inflater.flush()
    except zlib.error:
        raise SourceError("malformed", f"the answer's {coding} encoding is damaged") from None


def _too_large(url: str, service: Service, limits: Limits) -> SourceError:
    return SourceError(
        "too-large",
        f"{service.name} sent more than {limits.max_bytes} bytes for {_plain(url)} (as sent or inflated)",
        hint="set HZ_FETCH_MAX_BYTES to allow more, or point the source at a smaller document",
    )


def _unasked_304(url: str, service: Service) -> SourceError:
    return SourceError(
        "bad-source",
        f"{service.name} answered 304 Not Modified for {_plain(url)}, to a request that had nothing to compare",
        hint="the server or a proxy in between answers wrongly; hz asks again at the next recheck",
    )


def _answer(response: httpx.Response, body: bytes, url: str, service: Service, secrets: Secrets) -> Answer:
    status = response.status_code
    if status in (200, 304):
        link = response.links.get("next", {}).get("url")
        body = secrets.scrub_bytes(body)
        headers = {k: secrets.scrub(v) for k, v in response.headers.items()}
        final = secrets.scrub(redact_url(str(response.url)))
        return Answer(status, body, headers, secrets.scrub(link) if link else None, secrets, final)
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
    if reset and reset.isdigit() and len(reset) <= 12:  # a time this century, not an absurd number
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
