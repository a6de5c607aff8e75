"""A Jira on 127.0.0.1 for publish tests: the issue comment endpoints of REST v2 and v3, in their
documented shapes (a page of `comments` with `startAt`, `maxResults`, `total`; 201 and the comment on
a POST; v3 bodies are Atlassian documents), backed by a dict of issues. Faults: the next answers'
statuses (`fail`), and `on_write`, called once a comment is stored and before the answer goes out
(a test kills the writer there, from the outside)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_PATH = re.compile(r"^/rest/api/(?P<v>[23])/issue/(?P<issue>[A-Z][A-Z0-9_]*-[0-9]+)/comment$")


@dataclass
class FakeJira:
    url: str = ""
    issues: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # issue key -> comments
    token: str | None = None  # when set, a request without `Bearer <token>` (or basic auth) gets 401
    fail: list[int] = field(default_factory=list)  # statuses for the next requests, first first
    on_write: Callable[[], None] | None = None
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    page: int = 2  # comments per page at most, whatever maxResults asks: paging is exercised
    lock: threading.Lock = field(default_factory=threading.Lock)

    def comments(self, issue: str) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.issues.get(issue, []))

    def texts(self, issue: str) -> list[str]:
        return [c["body"] if isinstance(c["body"], str) else json.dumps(c["body"]) for c in self.comments(issue)]

    def answer(self, method: str, path: str, query: dict[str, list[str]], auth: str, body: bytes) -> tuple[int, Any]:
        self.requests.append((method, path))
        with self.lock:
            if self.fail:
                status = self.fail.pop(0)
                return status, {"errorMessages": [f"injected {status}"], "errors": {}}
        if self.token is not None and not (auth == f"Bearer {self.token}" or auth.startswith("Basic ")):
            return 401, {"errorMessages": ["You are not authenticated."], "errors": {}}
        match = _PATH.match(path)
        if match is None or match["issue"] not in self.issues:
            return 404, {"errorMessages": ["Issue does not exist or you do not have permission to see it."]}
        issue = match["issue"]
        if method == "GET":
            return 200, self._page(issue, query)
        return self._add(issue, json.loads(body or b"{}"))

    def _page(self, issue: str, query: dict[str, list[str]]) -> dict[str, Any]:
        start = int(query.get("startAt", ["0"])[0])
        size = min(int(query.get("maxResults", ["50"])[0]), self.page)
        every = self.comments(issue)
        return {"startAt": start, "maxResults": size, "total": len(every), "comments": every[start : start + size]}

    def _add(self, issue: str, payload: dict[str, Any]) -> tuple[int, Any]:
        if "body" not in payload:
            return 400, {"errorMessages": [], "errors": {"comment": "Comment body can not be empty!"}}
        with self.lock:
            comments = self.issues[issue]
            comment = {"id": str(10000 + len(comments)), "body": payload["body"],
                       "author": {"displayName": "hz bot"}, "created": "2026-12-01T02:00:00.000+0000"}  # fmt: skip
            comments.append(comment)
        if self.on_write is not None:
            self.on_write()
        return 201, comment


@contextmanager
def serve_jira(fake: FakeJira | None = None) -> Iterator[FakeJira]:
    jira = fake or FakeJira()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self, method: str) -> None:
            split = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, answer = jira.answer(method, split.path, parse_qs(split.query),
                                         self.headers.get("Authorization", ""), body)  # fmt: skip
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def log_message(self, *_: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    jira.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield jira
    finally:
        server.shutdown()
        server.server_close()
