"""A small HTTP server on 127.0.0.1 for source tests: routes by path, every request recorded."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

PAYLOADS = Path(__file__).parent / "payloads"


@dataclass(frozen=True)
class Request:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    reason: str | None = None  # the status line's words; None: the standard phrase


Route = Callable[[Request], Reply]


@dataclass
class Server:
    url: str
    routes: dict[str, Route]
    requests: list[Request]

    def count(self, path: str | None = None) -> int:
        return sum(1 for r in self.requests if path is None or r.path == path)


def payload(name: str) -> bytes:
    return (PAYLOADS / name).read_bytes()


def static(body: bytes, *, content_type: str = "application/json", etag: str | None = None, **headers: str) -> Route:
    """Serve `body`; with an ETag, answer a matching If-None-Match with 304."""

    def route(request: Request) -> Reply:
        extra = {"Content-Type": content_type, **{k.replace("_", "-"): v for k, v in headers.items()}}
        if etag is not None:
            extra["ETag"] = etag
            if request.headers.get("if-none-match") == etag:
                return Reply(304, b"", {"ETag": etag})
        return Reply(200, body, extra)

    return route


def status(code: int, body: bytes = b'{"message": "nope"}', **headers: str) -> Route:
    return lambda request: Reply(code, body, {k.replace("_", "-"): v for k, v in headers.items()})


@contextmanager
def serve(routes: dict[str, Route] | None = None) -> Iterator[Server]:
    requests: list[Request] = []
    table: dict[str, Route] = dict(routes or {})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            request = Request(parts.path, parse_qs(parts.query), {k.lower(): v for k, v in self.headers.items()})
            requests.append(request)
            route = table.get(parts.path)
            reply = route(request) if route else Reply(404, b'{"message": "Not Found"}')
            self.send_response(reply.status, reply.reason)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{server.server_port}", table, requests)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
