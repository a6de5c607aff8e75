"""Smart HTTP on loopback: `git http-backend` as a CGI behind a small threaded Python HTTP server.

The second real network transport of the tests and of bench/state.py. Every request runs one
`git http-backend`; the server answers HTTP/1.1 with a Content-Length so git's curl keeps the
connection for the advertisement and the pack of one command, and it sets TCP_NODELAY on every
accepted socket so that small replies are never held back waiting for an ACK.
"""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# request headers handed to the CGI as HTTP_* variables (content coding, protocol v2)
_PASSED = ("Content-Encoding", "Git-Protocol", "Accept-Encoding")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    project_root: Path

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn, addr


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the tests and the benchmark print their own figures

    def do_GET(self) -> None:
        self._cgi(b"")

    def do_POST(self) -> None:
        self._cgi(self._body())

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while size := int(self.rfile.readline().strip().split(b";")[0], 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(parts)
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def _cgi(self, body: bytes) -> None:
        path, _, query = self.path.partition("?")
        env = {
            "GIT_PROJECT_ROOT": str(self.server.project_root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "REMOTE_ADDR": self.client_address[0],
            "REMOTE_USER": "hz-test",  # receive-pack over http wants an authenticated user (or the config)
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "PATH": "/usr/local/bin:/usr/bin:/bin",
        }
        for name in _PASSED:
            if value := self.headers.get(name):
                env["HTTP_" + name.upper().replace("-", "_")] = value
        proc = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env, check=False)
        head, _, payload = proc.stdout.partition(b"\r\n\r\n")
        if not payload and b"\r\n\r\n" not in proc.stdout:
            head, _, payload = proc.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def serve_http(project_root: Path) -> Iterator[int]:
    """Serve every repository under `project_root` (push enabled on each) on 127.0.0.1; yields the port."""
    for bare in project_root.glob("*.git"):
        subprocess.run(["git", "-C", str(bare), "config", "http.receivepack", "true"], check=True)
    server = _Server(("127.0.0.1", 0), _Handler)
    server.project_root = project_root
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
