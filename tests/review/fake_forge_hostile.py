"""A hostile GitHub: answers the fake forge gives instead of its own, as a broken or malicious server would.

`fake.hostile.append(act)` makes the next request (whatever it asks) answered by `act(handler)`, which
writes to the socket itself. The acts:

- `deep(levels)`: a 200 whose JSON nests `levels` deep (600 levels is 1.2 KB);
- `huge(size)`: a 200 of `size` bytes of JSON whitespace, with no Content-Length, until the connection
  closes (a client that stops reading at its cap makes the write fail, which ends the act);
- `drip(every, stop)`: a 200 that promises a megabyte and sends one byte every `every` seconds until the
  client hangs up or `stop` is set; `drip(..., headers=True)` drips the header lines themselves;
- `redirect(origin)`: a 302 to the same path on another origin.

`Elsewhere(pulls)` is that other origin: a loopback server answering every path with the JSON of the
pull requests it was given (a list; `/pulls/<n>` the one of that number), counting what it was asked.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Act = Callable[[BaseHTTPRequestHandler], None]


def _head(handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str]) -> None:
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()


def deep(levels: int = 600) -> Act:
    body = b"[" * levels + b"]" * levels

    def act(handler: BaseHTTPRequestHandler) -> None:
        _head(handler, 200, {"content-type": "application/json", "content-length": str(len(body))})
        handler.wfile.write(body)

    return act


def huge(size: int) -> Act:
    def act(handler: BaseHTTPRequestHandler) -> None:
        handler.close_connection = True
        _head(handler, 200, {"content-type": "application/json", "connection": "close"})
        chunk = b" " * 65536
        sent = 0
        while sent < size:
            handler.wfile.write(chunk)
            sent += len(chunk)

    return act


def drip(every: float, stop: threading.Event, *, headers: bool = False) -> Act:
    def act(handler: BaseHTTPRequestHandler) -> None:
        handler.close_connection = True
        if headers:
            handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
            line = b"x-padding: " + b"a" * 10_000 + b"\r\n"
            for byte in line * 100:
                if stop.wait(every):
                    return
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
            return
        _head(handler, 200, {"content-type": "application/json", "content-length": "1000000"})
        handler.wfile.flush()
        while not stop.wait(every):
            handler.wfile.write(b" ")
            handler.wfile.flush()

    return act


def redirect(origin: str) -> Act:
    def act(handler: BaseHTTPRequestHandler) -> None:
        _head(handler, 302, {"location": origin + handler.path, "content-length": "0"})

    return act


class Elsewhere:
    """Another loopback origin that claims to be the forge."""

    def __init__(self, pulls: list[dict[str, Any]]) -> None:
        self.pulls = pulls
        self.asked: list[str] = []
        self.url = ""

    @contextmanager
    def running(self) -> Iterator[Elsewhere]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.asked.append(self.path)
                tail = self.path.split("?", 1)[0].rsplit("/", 1)[-1]
                found = [p for p in outer.pulls if str(p["number"]) == tail]
                body = json.dumps(found[0] if found else outer.pulls).encode()
                _head(self, 200, {"content-type": "application/json", "content-length": str(len(body))})
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


def until(predicate: Callable[[], bool], seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
