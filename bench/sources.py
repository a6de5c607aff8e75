"""Sources: fingerprinting a 5,000-item feed and a 10,000-commit git window, and fetches per tick.

Prints median and p95 wall times over several runs (a fresh cache each run, so every run parses and
fingerprints everything) and the number of HTTP requests a loopback server saw when 200 watchers read
20 distinct feeds in one tick. Nothing here asserts on time.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hz.sources.base import SourceSpec
from hz.sources.cache import SourceCache
from hz.sources.fetcher import fetch_all
from hz.sources.resolve import resolve
from hz.sources.watch import Watch

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
RUNS = 5


def timed(label: str, run: Callable[[Path], object], runs: int = RUNS) -> None:
    """Wall and CPU time: the machine may be shared, and CPU time shows what the work itself costs."""
    wall: list[float] = []
    cpu: list[float] = []
    for n in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            start, start_cpu = time.perf_counter(), time.process_time()
            run(Path(tmp) / f"cache{n}")
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    print(f"{label}: wall {_figures(wall)}; cpu {_figures(cpu)} ({runs} runs)")


def _figures(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"


def feed_xml(items: int) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Bench</title>']
    for n in range(items):
        day = NOW - timedelta(minutes=n)
        parts.append(
            f"<item><title>Post {n}</title><link>https://blog.example.org/p/{n}?utm_source=rss</link>"
            f"<pubDate>{day.strftime('%a, %d %b %Y %H:%M:%S GMT')}</pubDate>"
            f"<description>&lt;p&gt;Summary of post {n}.&lt;/p&gt;</description></item>"
        )
    parts.append("</channel></rss>")
    return "".join(parts).encode()


def bench_feed(root: Path) -> None:
    (root / "feed.xml").write_bytes(feed_xml(5000))
    spec = SourceSpec("feed:feed.xml", window=timedelta(days=30))
    timed(
        "5,000-item feed, parse + canonicalize + fingerprint",
        lambda cache: resolve(spec, SourceCache(cache), slot=NOW, now=NOW, environ={}, root=root),
    )


def history(root: Path, commits: int) -> Path:
    """A repository of `commits` commits, one file changed each, written with git fast-import."""
    repo = root / "history"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    start = int((NOW - timedelta(days=commits / 1000 + 1)).timestamp())
    lines: list[str] = []
    for n in range(commits):
        body = f"change {n}\n".encode()
        when = start + n * 60
        message = f"Change {n} in area {n % 40}".encode()
        lines.append("commit refs/heads/main")
        lines.append(f"committer Dev {n % 7} <dev{n % 7}@example.org> {when} +0000")
        lines.append(f"data {len(message)}")
        lines.append(message.decode())
        lines.append(f"M 100644 inline area{n % 40}/sub{n % 5}/file{n % 11}.txt")
        lines.append(f"data {len(body)}")
        lines.append(body.decode())
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input="\n".join(lines).encode(), check=True)
    subprocess.run(["git", "-C", str(repo), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    return repo


def bench_git(root: Path) -> None:
    repo = history(root, 10_000)
    spec = SourceSpec("git:.", window=timedelta(days=30))
    count = len(resolve(spec, SourceCache(root / "probe"), slot=NOW, now=NOW, environ={}, root=repo).facets["commits"])
    timed(
        f"10,000-commit git window ({count} commits in it), walk + paths + fingerprint",
        lambda cache: resolve(spec, SourceCache(cache), slot=NOW, now=NOW, environ={}, root=repo),
    )


def bench_watchers() -> None:
    hits: list[str] = []
    body = feed_xml(20)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        uris = [f"feed:http://127.0.0.1:{server.server_port}/feed{n}.xml" for n in range(20)]
        watches = [Watch(f"team:c{c}", "news", SourceSpec(uris[c % 20]), None) for c in range(200)]
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            report = fetch_all(watches, now=NOW, environ={}, root=None, cache=SourceCache(Path(tmp)))
            elapsed = time.perf_counter() - start
            again = fetch_all(watches, now=NOW, environ={}, root=None, cache=SourceCache(Path(tmp)))
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    print(
        f"200 watchers of 20 feeds, one tick: {len(hits)} HTTP fetches ({report.fetches} sources read) "
        f"in {elapsed * 1000:.0f} ms; the same tick again: {again.fetches} fetches"
    )


def main() -> None:
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bench_feed(root)
        bench_git(root)
    bench_watchers()


if __name__ == "__main__":
    main()
