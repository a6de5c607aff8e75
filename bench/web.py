"""The web head's figures, against `hz serve` run as its own process on loopback.

Run: .venv/bin/python bench/web.py [--quick] [--agent (only the agent page and its streams)]
Prints medians and p95; never asserts on time. Goals (issue 21): the list of 500 agents served in
<= 100 ms; an agent page with 1,000 turns in <= 150 ms (its latest 200 and a link to older ones, read
from the index: no spine is read); a spine append reaches an open page's event
stream in <= 500 ms, and a draft placed reaches an open drafts page in as long; 100 idle open streams
cost about no CPU.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sessions import make_spines
from timing import repeat, stats

from hz.session.index import Index
from hz.session.spine import SpineWriter
from hz.session.store import Store

TICKS = os.sysconf("SC_CLK_TCK")


class Server:
    """`hz serve --port 0` over a home, its port and token read from what it prints."""

    def __init__(self, home: Path) -> None:
        env = {**os.environ, "HZ_HOME": str(home)}
        hz = [sys.executable, "-m", "hz", "serve", "--port", "0"]
        self.process = subprocess.Popen(hz, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line + self.process.stderr.read() if self.process.stderr else line
        self.port = int(found.group(1))
        self.token = (home / "web" / "token").read_text().strip()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)

    def request(self, path: str) -> tuple[int, bytes]:
        """One GET on a fresh connection (as a browser's first view of a page), the whole body read."""
        with socket.create_connection(("127.0.0.1", self.port)) as sock:
            sock.sendall(self._head(path))
            data = b""
            while chunk := sock.recv(1 << 16):
                data += chunk
        return int(data.split(b" ", 2)[1]), data

    def _head(self, path: str, extra: str = "") -> bytes:
        return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAuthorization: Bearer {self.token}\r\n"
                f"Connection: close\r\n{extra}\r\n").encode()  # fmt: skip

    def stream(self, path: str) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.sendall(self._head(path, "Accept: text/event-stream\r\n"))
        return sock

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:  # never leave a server behind, even a stuck one
            self.process.kill()
            self.process.wait()
            print("  (the server did not stop within 20 s of SIGTERM and was killed)")


def home_with(folder: Path, agents: int, events: int) -> tuple[Path, list[str]]:
    home = folder / f"home-{agents}x{events}"
    root = home / "heinzel"
    make_spines(root, agents, events)
    os.chmod(home, 0o700)
    with Index.open(root):  # built once here, not on the server's first request
        pass
    return home, sorted(p.name for p in root.iterdir() if p.name.startswith("hz-"))


def read_until(sock: socket.socket, needle: bytes, timeout: float) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while needle not in data:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    return data


def bench_list(folder: Path, runs: int) -> None:
    home, _ = home_with(folder, 500, 24)
    server = Server(home)
    try:
        status, body = server.request("/")
        assert status == 200 and body.count(b"<tr data-agent=") == 500, status
        print(f"the list page of 500 agents (GET /): {stats(repeat(lambda: server.request('/'), runs))}")
        timed = repeat(lambda: server.request("/api/v1/heinzel_list"), runs)
        print(f"the same list as JSON (GET /api/v1/heinzel_list): {stats(timed)}")
        bench_idle_streams(server, 100)
    finally:
        server.stop()


def bench_agent(folder: Path, runs: int) -> None:
    home, (agent,) = home_with(folder, 1, 8 * 1000 + 3)  # 1,000 turns of eight lines each
    server = Server(home)
    try:
        status, body = server.request(f"/heinzel/{agent}")
        assert status == 200 and body.count(b"<tr data-turn=") == 200, (status, body.count(b"<tr data-turn="))
        timed = repeat(lambda: server.request(f"/heinzel/{agent}"), runs)
        print(f"an agent page with 1,000 turns, the latest 200 drawn (GET /heinzel/ID): {stats(timed)}")
        older = re.search(rb'href="\?before=(\d+)"', body)
        assert older is not None, "the page links to older turns"
        path = f"/heinzel/{agent}?before={older.group(1).decode()}"
        status, body = server.request(path)
        assert status == 200 and body.count(b"<tr data-turn=") == 200, (status, body.count(b"<tr data-turn="))
        timed = repeat(lambda: server.request(path), runs)
        print(f"  the next 200 older turns (?before=SEQ): {stats(timed)}")
        status, body = server.request(f"/heinzel/{agent}?turns=all")
        assert status == 200 and body.count(b"<tr data-turn=") == 1000, (status, body.count(b"<tr data-turn="))
        timed = repeat(lambda: server.request(f"/heinzel/{agent}?turns=all"), runs)
        print(f"  the same page with all 1,000 turns drawn (?turns=all): {stats(timed)}")
        bench_append_to_page(server, home, agent, max(10, runs // 2))
        bench_draft_to_drafts_page(server, home, agent, max(10, runs // 2))
    finally:
        server.stop()


def bench_append_to_page(server: Server, home: Path, agent: str, count: int) -> None:
    """From a spine append (fsynced, by a writer in this process) to its `step` event on an open stream."""
    sock = server.stream(f"/events/heinzel/{agent}")
    read_until(sock, b"event: row", 10)
    delays = []
    with SpineWriter.open(home / "heinzel" / agent) as writer:
        for _ in range(count):
            began = time.perf_counter()
            writer.append("usage", {"kind": "summary", "tokens": 10, "usd": 0.0}, now=datetime.now(UTC))
            read_until(sock, b"event: step", 5)
            delays.append(time.perf_counter() - began)
            time.sleep(0.05)
    sock.close()
    print(f"a spine append reaches the open page's stream: {stats(delays)}")


def bench_draft_to_drafts_page(server: Server, home: Path, agent: str, count: int) -> None:
    """From a draft placed (a `draft.placed` line appended through the store, which keeps the index, as
    every hz process does) to the `changed` event on the open drafts page's stream."""
    status, body = server.request("/drafts")
    found = re.search(rb'data-stream="([^"]+)"', body)
    assert status == 200 and found is not None, status
    sock = server.stream(found.group(1).decode().replace("&amp;", "&"))
    read_until(sock, b"retry:", 10)
    delays = []
    with Store(home / "heinzel") as store:
        for n in range(count):
            began = time.perf_counter()
            with store.writer(agent) as writer:
                data = {"key": f"{agent}@bench-{n}", "asset": f"doc:bench-{n}", "hash": "sha256:" + "cd" * 32,
                        "contract_version": 1}  # fmt: skip
                writer.append("draft.placed", data, turn=None, now=datetime.now(UTC))
            read_until(sock, b"event: changed", 10)
            delays.append(time.perf_counter() - began)
            time.sleep(0.05)
    sock.close()
    print(f"a draft placed reaches the open drafts page's stream: {stats(delays)}")


def bench_idle_streams(server: Server, count: int, seconds: float = 10.0) -> None:
    socks = [server.stream("/events/list") for _ in range(count)]
    for sock in socks:
        read_until(sock, b"event: row", 30)
    time.sleep(1.0)
    before, began = server.cpu_s(), time.perf_counter()
    time.sleep(seconds)
    used, wall = server.cpu_s() - before, time.perf_counter() - began
    print(f"{count} idle open streams: the server used {used * 1000:.0f} ms of CPU in {wall:.1f} s "
          f"({used / wall * 100:.2f}% of one core)")  # fmt: skip
    for sock in socks:
        sock.close()


def main() -> None:
    quick = "--quick" in sys.argv
    runs = 10 if quick else 40
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if "--agent" not in sys.argv:  # --agent: only the agent page's figures
            bench_list(folder, runs)
        bench_agent(folder, runs)


if __name__ == "__main__":
    main()
