"""The forge adapter's HTTP: conditional GETs, pagination, rate limits and errors a person can act on.

- Every GET carries the ETag of its last answer (`If-None-Match`), kept in memory for the process per
  token and URL; a 304 answers from that copy, and GitHub does not count it against the rate limit.
- Primary rate limit (403/429 with `x-ratelimit-remaining: 0`): waited out when `x-ratelimit-reset` is
  near, else a ForgeError saying when it resets. Secondary limit (403/429 with `Retry-After`, or a 429
  without it): `Retry-After` is honoured, up to a bounded total wait per request, else a ForgeError.
  Header values are parsed defensively: a huge, negative or garbled value never hangs or crashes.
- 401 says the token was rejected, 404 is returned to the caller when it asked for that (a lookup),
  422 carries GitHub's own message; every text taken from an answer is scrubbed of secrets.
- Every request goes through the shared client (`hz.http.client`): an overall deadline, bounded by the
  tick's remote time too, a size cap, JSON nesting bounded, and redirects only within the API's origin,
  so another host never answers for GitHub; a rate-limit wait must also fit in the tick's time left. A
  `Link: rel="next"` is followed only under the API's base, so a page never sends the token elsewhere.
- httpx and httpcore log what a server answers (its headers, at DEBUG) when someone turns their logging
  on; a server that echoes the token in a header would put it in that log, so their records are scrubbed.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hz.http.budget import may_wait
from hz.http.client import Asked, Limits, RemoteError, json_of, request
from hz.http.jsonvalue import loads
from hz.http.ratelimit import rate_limit
from hz.review.forge_types import ForgeError
from hz.secrets import Secrets

if TYPE_CHECKING:
    import httpx

MAX_WAIT_S = 15.0  # the most one request waits for rate limits in all, before it gives up with a ForgeError
MAX_ATTEMPTS = 4
MAX_PAGES = 100  # 10,000 comments at 100 a page: more is not a thread a publish marker hides in
CACHE_ENTRIES = 512
_TOKEN_HINT = "set GITHUB_TOKEN to a token that may read and write pull requests and issues of {repo}"

# url -> (etag, body, next page); keyed with a digest of the token too, since what a token may see differs
_CACHE: OrderedDict[tuple[str, str], tuple[str, Any, str | None]] = OrderedDict()


class _ScrubbedLogs(logging.Filter):
    """Scrubs the secrets of every transport made in this process out of the HTTP libraries' records."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: list[Secrets] = []

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        for secrets in self.secrets:
            text = secrets.scrub(text)
        record.msg, record.args = text, None
        return True


_LOGS = _ScrubbedLogs()
for _name in ("httpx", "httpcore.connection", "httpcore.http11", "httpcore.http2", "httpcore.proxy"):
    logging.getLogger(_name).addFilter(_LOGS)


@dataclass(frozen=True)
class Reply:
    status: int
    data: Any  # the parsed JSON body (scrubbed), None for an empty one; shared with the ETag cache: read only
    next_url: str | None = None


class Transport:
    """Requests to one GitHub API base for one repository, with one token."""

    def __init__(
        self,
        client: httpx.Client,
        base: str,
        repo: str,
        token: str,
        secrets: Secrets,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_wait_s: float = MAX_WAIT_S,
        limits: Limits | None = None,
    ) -> None:
        self.client = client
        self.limits = limits or Limits()
        self.base = base
        self.repo = repo
        self.secrets = secrets
        self.sleep = sleep
        self.clock = clock
        self.max_wait_s = max_wait_s
        self._who = hashlib.sha256(token.encode()).hexdigest()[:16]
        if secrets not in _LOGS.secrets:
            _LOGS.secrets.append(secrets)

    def get(self, path: str, *, missing_ok: bool = False) -> Reply:
        """GET `path` (relative to the base, or a full URL on it), conditionally; 404 as a Reply if `missing_ok`."""
        url = self._url(path)
        key = (self._who, url)
        cached = _CACHE.get(key)
        headers = {"If-None-Match": cached[0]} if cached else {}
        response = self._send("GET", url, headers=headers, missing_ok=missing_ok)
        if response.status_code == 304 and cached is not None:
            _CACHE.move_to_end(key)
            return Reply(200, cached[1], cached[2])
        reply = self._reply(response)
        etag = response.headers.get("etag")
        if response.status_code == 200 and etag:
            _CACHE[key] = (etag, reply.data, reply.next_url)
            while len(_CACHE) > CACHE_ENTRIES:
                _CACHE.popitem(last=False)
        return reply

    def pages(self, path: str) -> Iterator[Any]:
        """Each item of a listed resource, page by page (`Link: rel="next"`)."""
        url: str | None = path
        for _ in range(MAX_PAGES):
            if url is None:
                return
            reply = self.get(url)
            if not isinstance(reply.data, list):
                raise ForgeError(f"GitHub answered {self._shown(url)} with something that is not a list")
            yield from reply.data
            url = reply.next_url
        raise ForgeError(f"GitHub listed more than {MAX_PAGES} pages at {self._shown(path)}; hz stopped reading")

    def send(self, method: str, path: str, payload: Mapping[str, Any], *, missing_ok: bool = False) -> Reply:
        """A write (POST, PATCH, PUT); its answer parsed."""
        return self._reply(self._send(method, self._url(path), json=payload, missing_ok=missing_ok))

    def _url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            if not path.startswith(self.base + "/"):  # a Link to elsewhere would take the token with it
                raise ForgeError(f"GitHub pointed to a page outside {self.base}; hz did not follow it")
            return path
        return f"{self.base}/{path.lstrip('/')}"

    def _send(self, method: str, url: str, *, missing_ok: bool, **kwargs: Any) -> httpx.Response:
        waited = 0.0
        asked = Asked("GitHub", self._shown(url))
        for attempt in range(MAX_ATTEMPTS):
            try:
                response = request(self.client, method, url, asked, self.limits, **kwargs)
            except RemoteError as exc:
                hint = (
                    exc.hint
                    if exc.kind != "unavailable"
                    else "check the network and HZ_GITHUB_API; the next tick tries again"
                )
                raise ForgeError(self.secrets.scrub(exc.message), hint=hint) from None
            limit = rate_limit(response, self.clock())
            if limit is None:
                self._check(method, url, response, missing_ok)
                return response
            wait, when = limit
            too_long = wait is None or waited + wait > self.max_wait_s or not may_wait(wait)
            if too_long or attempt == MAX_ATTEMPTS - 1:
                raise ForgeError(
                    f"GitHub's rate limit stops {method} {self._shown(url)} ({response.status_code}); {when}",
                    hint="hz tries again at a later tick; nothing was lost",
                    status=response.status_code,
                )
            assert wait is not None
            self.sleep(wait)
            waited += wait
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _check(self, method: str, url: str, response: httpx.Response, missing_ok: bool) -> None:
        status = response.status_code
        if status < 400 or (status == 404 and missing_ok):
            return
        what = f"{method} {self._shown(url)}"
        said = self._message(response)
        if status == 401:
            raise ForgeError(
                f"GitHub rejected the token in GITHUB_TOKEN (401 {said}) for {what}",
                hint=_TOKEN_HINT.format(repo=self.repo),
                status=status,
            )
        if status == 403:
            raise ForgeError(f"GitHub forbids {what} (403 {said})", hint=_TOKEN_HINT.format(repo=self.repo), status=403)
        if status == 404:
            raise ForgeError(
                f"GitHub has nothing at {what} (404 {said})",
                hint=f"check the repository {self.repo} (GITHUB_REPOSITORY or [forge] repo) and the token's access",
                status=404,
            )
        if status == 422:
            raise ForgeError(f"GitHub refused {what} (422): {said}", status=422)
        hint = "it is probably temporary; the next tick tries again" if status >= 500 else None
        raise ForgeError(f"GitHub answered {what} with {status} {said}", hint=hint, status=status)

    def _message(self, response: httpx.Response) -> str:
        """GitHub's `message` and the `errors[].message` of an error answer: scrubbed, one line, bounded."""
        try:
            data = loads(response.content, self.limits.max_depth)
        except ValueError:  # no JSON, or JSON too deep to read: the status line says it
            data = None
        parts: list[str] = []
        if isinstance(data, dict):
            parts.append(str(data.get("message") or ""))
            errors = data.get("errors")
            for error in errors if isinstance(errors, list) else []:
                if isinstance(error, dict):  # `{"field": "head", "code": "invalid"}` when there is no message
                    said = error.get("message") or " ".join(str(error[k]) for k in ("field", "code") if error.get(k))
                    parts.append(str(said))
                elif isinstance(error, str):
                    parts.append(error)
        text = "; ".join(p for p in parts if p) or response.reason_phrase or ""
        text = self.secrets.scrub(" ".join(text.split()))
        return text if len(text) <= 300 else text[:297] + "..."

    def _reply(self, response: httpx.Response) -> Reply:
        data: Any = None
        if response.status_code != 404:
            try:
                data = self.secrets.scrub_value(
                    json_of(response, Asked("GitHub", self._shown(str(response.url))), self.limits)
                )
            except RemoteError as exc:
                raise ForgeError(self.secrets.scrub(exc.message), hint=exc.hint, status=response.status_code) from None
        link = response.links.get("next", {}).get("url")
        return Reply(response.status_code, data, link)

    def _shown(self, url: str) -> str:
        """A URL for a message: the path on the API, no query, scrubbed."""
        path = url.removeprefix(self.base).split("?", 1)[0] or "/"
        return self.secrets.scrub(path)
