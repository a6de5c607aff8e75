"""A loopback server that speaks the OpenAI chat completions API and reports usage like a paid endpoint.

Each answer drafts the test contract's note (facets summary and risks) by calling the output tool, and
reports `prompt_tokens` and `completion_tokens`, the latter at most the `max_tokens` the request asked for
(an honest endpoint) unless `over_report` says otherwise. `hold` keeps each request waiting until the test
releases it (a request in flight); `pair` lets two concurrent requests wait for each other a moment, so
two racing ticks really are in flight together when both are let through.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DRAFT = {
    "kind": "draft",
    "report": "what shipped this week",
    "drafts": [{"output": "note", "facet": f, "text": f"the week's {f}"} for f in ("summary", "risks")],
}


class OpenAIServer:
    def __init__(
        self, *, completion_tokens: int, prompt_tokens: int = 100, over_report: int = 0, usage: bool = True
    ) -> None:
        self.completion_tokens = completion_tokens
        self.usage = usage  # False: the answer has no `usage` at all
        self.prompt_tokens = prompt_tokens
        self.over_report = over_report  # output tokens reported beyond the request's max_tokens
        self.asked: list[int | None] = []  # each request's max_tokens, in arrival order
        self.arrived = threading.Semaphore(0)
        self.release = threading.Event()
        self.release.set()
        self.pair = threading.Barrier(2, timeout=3.0)
        self.pairing = False
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.asked.append(body.get("max_tokens", body.get("max_completion_tokens")))
                server.arrived.release()
                if server.pairing:
                    # the other tick may send nothing (refused, or skipped before asking)
                    with contextlib.suppress(threading.BrokenBarrierError):
                        server.pair.wait()
                server.release.wait(timeout=60)
                data = json.dumps(server.answer(body)).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client was killed while its request was in flight

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        tool = next(t["function"]["name"] for t in body["tools"] if t["function"]["name"].startswith("final_result"))
        asked = body.get("max_tokens", body.get("max_completion_tokens"))
        completion = self.completion_tokens if asked is None else min(self.completion_tokens, int(asked))
        if self.over_report:  # more than the request allowed, whatever it was
            completion = (int(asked) if asked is not None else self.completion_tokens) + self.over_report
        call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": json.dumps(DRAFT)}}
        answer: dict[str, Any] = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1764400000,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                }
            ],
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": self.prompt_tokens + completion,
            },
        }
        if not self.usage:
            del answer["usage"]
        return answer


@contextmanager
def serving(**kw: Any) -> Iterator[OpenAIServer]:
    server = OpenAIServer(**kw)
    server.thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.http.shutdown()
        server.http.server_close()
        server.thread.join()
