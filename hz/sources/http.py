"""HTTP for the remote adapters: one client, conditional requests, pagination, rate limits, clear errors.

Tokens come only from the environment passed in (`GITHUB_TOKEN`, `JIRA_TOKEN`), travel only in request
headers and are never put in a URL, a message, a log or the cache. A server may echo them back (in a
body, a header, a reason phrase): every answer is scrubbed of the environment's secrets here, before
anything reads it, and URLs lose their userinfo before they are quoted or kept. A rate-limited answer (429, or 403
with `X-RateLimit-Remaining: 0`) is waited out when `Retry-After` / `X-RateLimit-Reset` is within the
caller's bound, and otherwise reported with the time it resets.

Every request goes through `hz.http.client`: an overall deadline (also bounded by the tick's remote
time), a size cap as sent and as inflated, JSON nesting bounded, redirects only within the origin
asked. Its failures become SourceErrors here (`too-large`, `unavailable` for a deadline, `malformed` for
a document nested too deep, `bad-source` for a redirect elsewhere).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hz.http.budget import may_wait
from hz.http.client import Asked, Limits, RemoteError, limits_from, new_client, request, same_origin, too_deep
from hz.http.jsonvalue import NotJson, TooDeep, loads
from hz.http.ratelimit import rate_limit
from hz.secrets import Secrets, redact_url, secrets_of
from hz.sources.base import SourceError

if TYPE_CHECKING:
    import httpx

__all__ = ["Answer", "Limits", "Service", "client", "get", "limits_from"]

USER_AGENT = "hz-sources/1"


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
    asked: Asked | None = None  # who answered what, for the message when the JSON nests too deep
    limits: Limits = field(default_factory=Limits)

    def json(self) -> Any:
        """The body's JSON; None when it is none; a SourceError when it nests past the limit."""
        try:
            value = loads(self.body, self.limits.max_depth)
        except NotJson:
            return None
        except TooDeep:
            error = too_deep(self.asked or Asked("the server", "its answer"), self.limits)
            raise SourceError("malformed", error.message, hint=error.hint) from None
        # The body was scrubbed as bytes; only a secret written with escapes (`\u0067hp_…`, `https:\/\/`)
        # gets past that, and shows once the text is decoded, so only then are the strings walked.
        if self.secrets is None or (b"\\u" not in self.body and b"\\/" not in self.body):
            return value
        return self.secrets.scrub_value(value)


def client(headers: Mapping[str, str] | None = None) -> httpx.Client:
    return new_client({"User-Agent": USER_AGENT, **(headers or {})})


# what a failure of the shared client is, as a source error
_CODES = {
    "unavailable": "unavailable",
    "timeout": "unavailable",
    "too-large": "too-large",
    "too-deep": "malformed",
    "redirect": "bad-source",
    "malformed": "malformed",
}


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
    elsewhere: bool = False,
) -> Answer:
    """GET `url`; 200 or 304 come back, everything else is a SourceError naming the status.

    `elsewhere`: redirects may lead to another origin (a public feed that moved); else only within it.

    `secrets` (by default those of this process's environment) are scrubbed from all the answer holds.
    A rate limit is waited out when it asks for at most `max_wait_s` and the tick has that time left.
    """
    secrets = secrets_of() if secrets is None else secrets
    limits = limits_from(os.environ) if limits is None else limits
    asked = Asked(service.name, _plain(url))
    headers = {"Accept-Encoding": "gzip, deflate"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    for _attempt in range(3):
        try:
            response = request(session, "GET", url, asked, limits, params=params, headers=headers, elsewhere=elsewhere)
        except RemoteError as exc:
            raise SourceError(_CODES[exc.kind], secrets.scrub(exc.message), hint=exc.hint) from None
        limit = rate_limit(response, time.time())
        if limit is None:
            if response.status_code == 304 and not (etag or last_modified):
                raise _unasked_304(url, service)
            return _answer(response, url, service, secrets, asked, limits)
        wait, when = limit
        if wait is None or wait > max_wait_s or not may_wait(wait):
            raise _rate_limited(response, url, service, secrets.scrub(when))
        sleep(wait)
    raise _rate_limited(response, url, service, secrets.scrub(when))


def _unasked_304(url: str, service: Service) -> SourceError:
    return SourceError(
        "bad-source",
        f"{service.name} answered 304 Not Modified for {_plain(url)}, to a request that had nothing to compare",
        hint="the server or a proxy in between answers wrongly; hz asks again at the next recheck",
    )


def _answer(
    response: httpx.Response, url: str, service: Service, secrets: Secrets, asked: Asked, limits: Limits
) -> Answer:
    status = response.status_code
    if status in (200, 304):
        link = response.links.get("next", {}).get("url")
        if link and not same_origin(link, url):  # the session's token would go with the request
            raise SourceError(
                "bad-source",
                f"{service.name} pointed the next page of {_plain(url)} to another origin; hz did not follow it",
                hint="another server never answers for the one asked; hz tries again at the next recheck",
            )
        body = secrets.scrub_bytes(response.content if status == 200 else b"")
        headers = {k: secrets.scrub(v) for k, v in response.headers.items()}
        final = secrets.scrub(redact_url(str(response.url)))
        next_url = secrets.scrub(link) if link else None
        return Answer(status, body, headers, next_url, secrets, url=final, asked=asked, limits=limits)
    where = _plain(url)
    reason = secrets.scrub(f"{status} {response.reason_phrase}".strip())
    said = server_says(response, secrets, limits)
    reason += f": {said}" if said else ""
    if status == 401:
        error = SourceError(
            "unauthorized",
            f"{service.name} refused the request for {where} ({reason})",
            hint=f"set {service.token_env} to a token that may read it",
        )
    elif status == 403:
        error = SourceError(
            "forbidden",
            f"{service.name} forbids reading {where} ({reason})",
            hint=f"check that the token in {service.token_env} has access to it",
        )
    elif status == 404:
        error = SourceError(
            "not-found", f"{service.name} has nothing at {where} ({reason})", hint="check the source's name"
        )
    elif status >= 500:
        error = SourceError(
            "server-error",
            f"{service.name} failed to answer for {where} ({reason})",
            hint="it is probably temporary; hz tries again at the next recheck",
        )
    else:
        error = SourceError("bad-source", f"{service.name} rejected the request for {where} ({reason})")
    error.status = status
    raise error


def server_says(response: httpx.Response, secrets: Secrets, limits: Limits) -> str:
    """What an error answer says in its own words: Jira's `errorMessages` and `errors`, GitHub's `message`
    (when it adds to the status line); one line, at most 300 characters, scrubbed."""
    try:
        data = loads(response.content, limits.max_depth)
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    parts = [str(m) for m in data.get("errorMessages") or () if isinstance(m, str | int | float)]
    errors = data.get("errors")
    if isinstance(errors, dict):
        parts += [f"{k}: {v}" for k, v in errors.items() if isinstance(v, str | int | float)]
    message = data.get("message")
    if isinstance(message, str) and message.strip().lower() != response.reason_phrase.strip().lower():
        parts.append(message)
    text = secrets.scrub(" ".join("; ".join(p for p in parts if str(p).strip()).split()))
    return text if len(text) <= 300 else text[:297] + "..."


def _rate_limited(response: httpx.Response, url: str, service: Service, when: str) -> SourceError:
    return SourceError(
        "rate-limited",
        f"{service.name} rate limit reached reading {_plain(url)} ({response.status_code}); {when}",
        hint="hz tries again at the next recheck; set a longer `recheck` on inputs that poll this often",
    )


def _plain(url: str) -> str:
    """The URL without its query string or userinfo: short, and never carrying anything a user pasted into it."""
    return redact_url(url.split("?", 1)[0])
