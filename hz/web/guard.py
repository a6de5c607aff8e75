"""The one gate every request passes, whatever route it asks for (an ASGI middleware around the app).

In order: the Host header must name this loopback server (a DNS-rebinding page gets its own name there);
the request must carry the session cookie or the bearer token, except the login URL, which carries a
one-time code instead; a request that changes something must come from this very origin and, when a
browser's cookie authenticates it, carry the CSRF token (a header, or the `csrf` field of a form, read
here from a bounded body that is then handed on unchanged). Every answer gets the security headers:
a strict Content-Security-Policy (scripts and styles only from /static, nothing inline, no frames), no
referrer (the login URL holds a code), no sniffing and no caching.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from hz.web.auth import Keys

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_BODY = 256 * 1024  # a chat message or an answer; more is no form of ours
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]
LOGIN_PATH = "/login"
CSRF_HEADER = "x-hz-csrf"


def cookie_name(port: int) -> str:
    """Cookies ignore ports: two servers on one machine (two homes) keep a cookie each."""
    return f"hz_session_{port}"


class Guard:
    def __init__(self, app: ASGIApp, keys: Keys, port: int) -> None:
        self.app = app
        self.keys = keys
        self.port = port
        self.watcher: Any = None  # the app's `hz.web.live.Watcher`, which the server ends at shutdown

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets are served; refuse whatever else comes
            return
        send = _with_headers(send)
        headers = _headers(scope)
        host = headers.get("host", "")
        if not self.host_ok(host):
            await _refuse(send, 421, "this server answers to 127.0.0.1, localhost or [::1] only", scope)
            return
        how = self.authenticated(headers)
        if how is None and scope["path"] != LOGIN_PATH:
            await _refuse(send, 401, "log in with the URL that `hz serve` printed, or send the bearer token", scope)
            return
        scope.setdefault("state", {})["hz_auth"] = how
        if scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        origin = headers.get("origin")
        # a browser always sends Origin with a POST; only a bearer client (no ambient cookie) may omit it
        if (origin is not None and origin != f"http://{host}") or (origin is None and how != "bearer"):
            await _refuse(send, 403, "a request that changes something must come from this page's own origin", scope)
            return
        body = await _body(receive)
        if body is None:
            await _refuse(send, 413, f"the request body is larger than {MAX_BODY} bytes", scope)
            return
        if how == "cookie" and not self.keys.csrf_ok(_csrf_of(headers, body)):
            await _refuse(send, 403, "the CSRF token is missing or wrong; reload the page and try again", scope)
            return
        await self.app(scope, _replay(body, receive), send)

    def host_ok(self, host: str) -> bool:
        name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
        if not name:  # no port given: the default port is never ours
            return False
        return name in LOOPBACK_NAMES and port == str(self.port)

    def authenticated(self, headers: dict[str, str]) -> str | None:
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and value and self.keys.bearer_ok(value.strip()):
            return "bearer"
        presented = _cookies(headers.get("cookie", "")).get(cookie_name(self.port))
        if presented and self.keys.cookie_ok(presented):
            return "cookie"
        return None


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name; a repeated header keeps its first value (the guard's
    checks then read exactly what Starlette's `request.headers[...]` would)."""
    found: dict[str, str] = {}
    for name, value in scope.get("headers", ()):
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def _cookies(header: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in header.split(";"):
        name, eq, value = part.strip().partition("=")
        if eq:
            found.setdefault(name, value)
    return found


def _csrf_of(headers: dict[str, str], body: bytes) -> str:
    if CSRF_HEADER in headers:
        return headers[CSRF_HEADER]
    if headers.get("content-type", "").split(";")[0].strip() == "application/x-www-form-urlencoded":
        values = parse_qs(body.decode("utf-8", errors="replace")).get("csrf", [""])
        return values[0]
    return ""


async def _body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, rest: Receive) -> Receive:
    """The body read by the guard, then the connection's own messages (a disconnect when the client
    leaves: a streaming answer must not be told at once that its client is gone)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await rest()

    return receive


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(n, v) for n, v in SECURITY_HEADERS if n not in names]
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return sending


async def _refuse(send: Send, status: int, why: str, scope: Scope) -> None:
    """JSON for the API and the MCP endpoint, a line of text for a browser."""
    wants_json = scope["path"].startswith(("/api/", "/mcp"))
    body = json.dumps({"error": why}).encode() if wants_json else f"{status}: {why}\n".encode()
    kind = b"application/json" if wants_json else b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})
