"""The part the fake OpenAI and Anthropic servers share: a loopback HTTP server that keeps every request
(path, headers, body) and answers it like a paid model endpoint, with what a test tells it to.

What it answers: `outcome`, the structured result of a turn (`NOTHING` unless told otherwise).

The usage it reports, in tokens:
- input: one per UTF-8 byte of what it was sent (a tokenizer can count fewer, never more);
- output: `completion_tokens` when given (what the endpoint bills), else one per byte of its answer, never
  more than the request's output limit, as an honest endpoint; `over_report` tokens past that limit instead;
- none at all under `reports_usage=False`.

When it answers: at once, unless a test clears `release` (each request then waits there, in flight, until
the test sets it again; `arrived` counts the requests that came) or sets `pairing` (two concurrent requests
wait for each other, up to 3 s, so two racing clients really are in flight together).
"""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

NOTHING = {"kind": "nothing", "report": "no input moved since Friday"}
NOTHING_CJK = {"kind": "nothing", "report": "自上周五以来没有任何输入变化"}  # a report line in CJK text


def utf8(value: Any) -> int:
    """Bytes of a JSON value's text as a tokenizer would see them (strings as themselves)."""
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8"))


def output_limit(body: dict[str, Any]) -> int | None:
    """The request's cap on the answer's tokens, under either API's name for it."""
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    return None if limit is None else int(limit)


def output_tool(names: list[str]) -> str:
    """The tool that takes the outcome: the first named `final_result…` (pydantic-ai's name), else the first."""
    return next((n for n in names if n.startswith("final_result")), names[0])


class ModelEndpoint:
    def __init__(
        self,
        *,
        outcome: dict[str, Any] = NOTHING,
        completion_tokens: int | None = None,
        over_report: int = 0,
        reports_usage: bool = True,
    ) -> None:
        self.outcome = outcome
        self.completion_tokens = completion_tokens
        self.over_report = over_report
        self.reports_usage = reports_usage
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self.arrived = threading.Semaphore(0)
        self.release = threading.Event()
        self.release.set()
        self.pairing = False
        self._pair = threading.Barrier(2, timeout=3.0)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def base_url(self) -> str:
        """What a client library is configured with to reach this endpoint."""
        return self.url

    @property
    def asked(self) -> list[int | None]:
        """Each request's output limit, in arrival order."""
        return [output_limit(body) for _, _, body in self.requests]

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        raise NotImplementedError

    def usage(self, sent: int, answered: int, limit: int | None) -> tuple[int, int] | None:
        """(input, output) tokens to report for `sent` bytes in and `answered` bytes out, or None for none."""
        if not self.reports_usage:
            return None
        output = answered if self.completion_tokens is None else self.completion_tokens
        if self.over_report:
            return sent, (output if limit is None else limit) + self.over_report
        return sent, output if limit is None else min(output, limit)

    def _wait_turn(self) -> None:
        if self.pairing:
            # the other client may send nothing (refused, or skipped before asking): go on after the timeout
            with contextlib.suppress(threading.BrokenBarrierError):
                self._pair.wait()
        self.release.wait(timeout=60)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                endpoint.arrived.release()
                endpoint._wait_turn()
                status, payload = endpoint.answer(self.path, body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client was killed, or gave up, while its request was in flight

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.release.set()  # a held request must not outlive the test
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
