"""The HTTP plumbing the fake OpenAI and Anthropic servers share: a loopback ThreadingHTTPServer.

A server keeps every request it was sent (path, headers, body) and answers through its `answer`
function. Its `mode` says how it reports usage:

- `honest`: one token per UTF-8 byte of what it was sent and of what it answers (a tokenizer can count
  fewer, never more);
- `over-reporting`: honest input, but ten times the output limit it was given plus 1,000;
- `no-usage`: no usage at all;
- `slow`: honest, after `delay` seconds (and a `started` event set the moment the request arrived).

`cjk` answers in Chinese: the report line of the outcome is CJK text.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("honest", "over-reporting", "no-usage", "slow")
OUTCOME = {"kind": "nothing", "report": "no input moved since Friday"}
CJK_OUTCOME = {"kind": "nothing", "report": "自上周五以来没有任何输入变化"}


def utf8(value: Any) -> int:
    """Bytes of a JSON value's text as a tokenizer would see them (strings as themselves)."""
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


class FakeEndpoint:
    def __init__(self, mode: str = "honest", *, delay: float = 5.0, cjk: bool = False) -> None:
        assert mode in MODES, mode
        self.mode = mode
        self.delay = delay
        self.outcome = CJK_OUTCOME if cjk else OUTCOME
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.started = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        raise NotImplementedError

    def usage(self, sent: int, answered: int, limit: int) -> tuple[int, int] | None:
        """(input, output) tokens to report, or None for no usage."""
        if self.mode == "no-usage":
            return None
        if self.mode == "over-reporting":
            return sent, limit * 10 + 1000
        return sent, answered

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                endpoint.started.set()
                if endpoint.mode == "slow":
                    time.sleep(endpoint.delay)
                status, payload = endpoint.answer(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    @contextmanager
    def running(self) -> Iterator[FakeEndpoint]:
        self.thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()
            self.thread.join()


Answer = Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]
