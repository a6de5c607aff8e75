"""One request to a remote API, on terms hz sets rather than the server.

- **Deadline.** A request ends by `HZ_FETCH_DEADLINE_S` (60 s) after it starts, connecting, sending,
  waiting and reading included, and by the end of the tick's remote time (`hz.http.budget`); a server
  dripping a byte every few seconds, of its headers or its body, is cut off there.
- **Size.** The body is read raw and inflated here, within `HZ_FETCH_MAX_BYTES` (32 MiB) as sent and as
  inflated, so a huge answer or a gzip bomb costs the cap, not its size.
- **Redirects** are followed only within the origin asked (scheme, host and port), at most five, and for
  a write only when the server asks to repeat it (307, 308): another host never answers for the one
  asked, whatever it says. A caller that sends no credential and trusts no origin (a public feed) may let
  GETs move to another http(s) origin (`elsewhere=True`); nothing of the session's but its headers goes.
- **JSON** is read with its nesting bounded (`hz.http.jsonvalue`).

Every failure is a `RemoteError` with a kind and a message that names the service and the URL as the
caller shows it; the adapters turn it into their own errors, so each says it in its own terms.
"""

from __future__ import annotations

import functools
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hz.errors import HzError
from hz.http.budget import REQUEST_S, current, positive
from hz.http.jsonvalue import MAX_DEPTH, NotJson, TooDeep, loads
from hz.secrets import redact_url

if TYPE_CHECKING:
    import httpx

USER_AGENT = "hz/1"
MAX_BYTES = 32 * 1024 * 1024  # a body, as sent and as inflated: a big feed or API page is a few MB
MAX_REDIRECTS = 5
KINDS = ("unavailable", "timeout", "too-large", "too-deep", "redirect", "malformed")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class RemoteError(HzError):
    """A remote request failed on hz's terms; `kind` is one of KINDS."""

    def __init__(self, kind: str, message: str, *, hint: str | None = None) -> None:
        assert kind in KINDS, kind
        super().__init__(message, hint=hint)
        self.kind = kind


@dataclass(frozen=True)
class Limits:
    deadline_s: float = REQUEST_S
    max_bytes: int = MAX_BYTES
    max_depth: int = MAX_DEPTH
    redirects: int = MAX_REDIRECTS


def limits_from(environ: Mapping[str, str]) -> Limits:
    """The limits the environment sets; a value that is no positive number leaves the default."""
    return Limits(
        positive(environ.get("HZ_FETCH_DEADLINE_S"), REQUEST_S),
        int(positive(environ.get("HZ_FETCH_MAX_BYTES"), MAX_BYTES)),
    )


def new_client(headers: Mapping[str, str] | None = None) -> httpx.Client:
    """A client whose every connection runs on the bounded network (`hz.http.network`)."""
    import httpx

    from hz.http.network import DeadlineTransport

    return httpx.Client(
        transport=DeadlineTransport(_tls()),
        timeout=REQUEST_S,  # per operation; `request` bounds the whole exchange on top
        follow_redirects=False,  # `request` follows them, within the origin
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        trust_env=False,
    )


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context per process: building it loads the CA bundle, a tenth of a second each time."""
    import httpx

    return httpx.create_ssl_context()


@dataclass(frozen=True)
class Asked:
    """Who is asked and how the request is shown in a message (no query, no credential)."""

    who: str
    shown: str


def request(
    session: httpx.Client,
    method: str,
    url: str,
    asked: Asked,
    limits: Limits,
    *,
    params: Mapping[str, str | int] | None = None,
    headers: Mapping[str, str] | None = None,
    json: Any = None,
    elsewhere: bool = False,
) -> httpx.Response:
    """The final answer to `method url`, its body read whole (inflated, within the cap) into `.content`."""
    import httpx

    from hz.http.network import REQUEST_END

    started = time.monotonic()
    end, by_tick = _end(started, limits)
    if end <= started:
        raise _late(asked, limits, by_tick=True)
    token = REQUEST_END.set(end)
    try:
        follow = _Follow(asked, limits, elsewhere)
        return follow(session, method, url, params=params, headers=headers, json=json)
    except httpx.TimeoutException:
        raise _late(asked, limits, by_tick=by_tick and time.monotonic() >= end) from None
    except httpx.HTTPError as exc:
        raise RemoteError(
            "unavailable",
            f"could not reach {asked.who} at {asked.shown} ({type(exc).__name__})",
            hint="check the network and the base URL; hz asks again at the next tick",
        ) from None
    finally:
        REQUEST_END.reset(token)


def _end(started: float, limits: Limits) -> tuple[float, bool]:
    """When the request must be done, and whether the tick's remote time is what ends it."""
    own = started + limits.deadline_s
    budget = current()
    if budget is None or budget.end >= own:
        return own, False
    return budget.end, True


def _late(asked: Asked, limits: Limits, *, by_tick: bool) -> RemoteError:
    budget = current()
    if by_tick and budget is not None:
        return RemoteError(
            "timeout",
            f"the tick's {budget.seconds:g} s for remote requests ran out before {asked.who} answered {asked.shown}",
            hint="hz asks again at the next tick; set HZ_TICK_REMOTE_S to allow a tick more",
        )
    return RemoteError(
        "timeout",
        f"{asked.who} took longer than {limits.deadline_s:g} s to answer {asked.shown}",
        hint="hz asks again at the next tick; set HZ_FETCH_DEADLINE_S to allow more",
    )


@dataclass(frozen=True)
class _Follow:
    asked: Asked
    limits: Limits
    elsewhere: bool  # a GET may move to another origin (no credential goes, no origin is trusted)

    def __call__(
        self,
        session: httpx.Client,
        method: str,
        url: str,
        *,
        params: Mapping[str, str | int] | None,
        headers: Mapping[str, str] | None,
        json: Any,
    ) -> httpx.Response:
        target: Any = url
        for _hop in range(self.limits.redirects + 1):
            with session.stream(method, target, params=params, headers=headers, json=json, timeout=None) as response:
                location = response.headers.get("location") if response.status_code in _REDIRECTS else None
                if location is None:
                    return _whole(response, self.asked, self.limits)
                target, method = self._redirected(response, location, method)
            params = None  # the new URL carries its own query
            json = json if method not in ("GET", "HEAD") else None
        asked, hops = self.asked, self.limits.redirects
        raise RemoteError(
            "redirect",
            f"{asked.who} redirected {asked.shown} more than {hops} times; hz stopped following",
            hint="point hz at the URL that answers",
        )

    def _redirected(self, response: httpx.Response, location: str, method: str) -> tuple[httpx.URL, str]:
        """Where a redirect leads, when hz follows it: the same origin (or, for `elsewhere`, any http(s)
        origin for a GET), and a write only when asked to repeat it."""
        import httpx

        asked = self.asked
        try:
            target = response.url.join(location)
        except (httpx.InvalidURL, ValueError):
            said = f"{asked.who} redirected {asked.shown} to an address that is no URL"
            raise RemoteError("redirect", said) from None
        moved = _origin(target) != _origin(response.url)
        if moved and not (self.elsewhere and method in ("GET", "HEAD") and target.scheme in _DEFAULT_PORTS):
            shown = redact_url(str(target.copy_with(query=None, fragment=None)))
            shown = shown if len(shown) <= 100 else shown[:97] + "..."
            raise RemoteError(
                "redirect",
                f"{asked.who} redirected {asked.shown} to another origin ({shown}); hz did not follow it",
                hint="another server never answers for the one asked; point the base URL at the server itself",
            )
        status = response.status_code
        if status == 303:
            return target, "GET"
        if status in (301, 302) and method not in ("GET", "HEAD"):
            raise RemoteError(
                "redirect", f"{asked.who} redirected the {method} of {asked.shown} ({status}); hz did not repeat it"
            )
        return target, method


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def same_origin(url: str, other: str) -> bool:
    """Whether two URLs share scheme, host and port (a `Link` to a next page must: it carries the token)."""
    import httpx

    try:
        return _origin(httpx.URL(url)) == _origin(httpx.URL(other))
    except (httpx.InvalidURL, ValueError):
        return False


def _whole(response: httpx.Response, asked: Asked, limits: Limits) -> httpx.Response:
    """`response` with its body read within the cap, as a response whose `.content` is that body."""
    import httpx

    from hz.http.body import BadEncoding, Overflow, read_capped

    declared = response.headers.get("content-length", "")
    try:
        if declared.strip().isdigit() and int(declared) > limits.max_bytes:
            raise Overflow
        body = read_capped(response.iter_raw(), response.headers.get("content-encoding", ""), limits.max_bytes)
    except Overflow:
        raise RemoteError(
            "too-large",
            f"{asked.who} sent more than {limits.max_bytes} bytes for {asked.shown} (as sent or inflated)",
            hint="set HZ_FETCH_MAX_BYTES to allow more, or point hz at a smaller document",
        ) from None
    except BadEncoding as exc:
        raise RemoteError("malformed", f"{asked.who} answered {asked.shown}: {exc}") from None
    kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _BODY_HEADERS]
    return httpx.Response(
        response.status_code,
        headers=kept,
        content=body,
        request=response.request,
        extensions={k: v for k, v in response.extensions.items() if k in ("reason_phrase", "http_version")},
    )


_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def json_of(response: httpx.Response, asked: Asked, limits: Limits) -> Any:
    """The answer's JSON (None for an empty body); RemoteError when it is no JSON or nests too deep."""
    if not response.content:
        return None
    try:
        return loads(response.content, limits.max_depth)
    except TooDeep:
        raise too_deep(asked, limits) from None
    except NotJson:
        raise RemoteError("malformed", f"{asked.who} answered {asked.shown} with something that is not JSON") from None


def too_deep(asked: Asked, limits: Limits) -> RemoteError:
    return RemoteError(
        "too-deep",
        f"{asked.who} answered {asked.shown} with JSON nested more than {limits.max_depth} levels deep; "
        "hz read none of it",
        hint="no answer of this API is shaped so; hz asks again at the next tick",
    )
