"""Feeds as servers really send them: odd links, odd answers, slow or endless bodies, bombs, odd items."""

from __future__ import annotations

import gzip
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources.helpers import fetch
from tests.sources.server import Reply, Server, static

WEEK = timedelta(days=7)


def rss(*items: str) -> bytes:
    body = "".join(f"<item>{item}</item>" for item in items)
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{body}</channel></rss>'.encode()


def item(title: str, link: str | None = None, when: str = "Fri, 27 Nov 2026 09:00:00 GMT", text: str = "") -> str:
    link_tag = f"<link>{link}</link>" if link is not None else ""
    return f"<title>{title}</title>{link_tag}<pubDate>{when}</pubDate><description>{text}</description>"


def serve_feed(server: Server, body: bytes, **headers: str) -> str:
    server.routes["/feed.xml"] = static(body, content_type="application/rss+xml", **headers)
    return f"feed:{server.url}/feed.xml"


# --- one bad item never sinks the fetch ---


@pytest.mark.parametrize("bad", ["http://example.org:99999/x", "http://[::1/x", "http://[zz::1]/x", "http://a:b:c/"])
def test_an_item_with_an_unparseable_link_is_skipped_and_counted(server: Server, cache: SourceCache, bad: str) -> None:
    body = rss(item("good", "https://example.org/good"), item("bad", bad))
    result = fetch(serve_feed(server, body), cache, window=WEEK)
    assert [i["url"] for i in result.facets["items"]] == ["https://example.org/good"]
    assert result.facets["skipped"] == 1


def test_items_without_link_or_id_are_kept_apart_by_their_content(server: Server, cache: SourceCache) -> None:
    days = [f"Fri, {20 + n} Nov 2026 09:00:00 GMT" for n in range(5)]
    body = rss(*(item("Daily status", when=day, text=f"day {n}") for n, day in enumerate(days)))
    result = fetch(serve_feed(server, body), cache, window=WEEK * 2)
    assert len(result.facets["items"]) == 5


def test_the_same_itemless_item_twice_is_one_item(server: Server, cache: SourceCache) -> None:
    body = rss(item("Daily status", text="same"), item("Daily status", text="same"))
    assert len(fetch(serve_feed(server, body), cache, window=WEEK).facets["items"]) == 1


def test_a_future_dated_item_is_kept_with_a_note(server: Server, cache: SourceCache) -> None:
    body = rss(item("ahead", "https://example.org/ahead", when="Sat, 28 Nov 2026 14:00:00 GMT"))
    result = fetch(serve_feed(server, body), cache, window=WEEK)  # the clock says 12:00 that day
    assert [(i["url"], i.get("future")) for i in result.facets["items"]] == [("https://example.org/ahead", True)]


@pytest.mark.parametrize("cut", [-10, -30, -60])
def test_a_truncated_document_is_an_error_not_a_smaller_feed(server: Server, cache: SourceCache, cut: int) -> None:
    body = rss(item("one", "https://example.org/1"), item("two", "https://example.org/2"))
    with pytest.raises(SourceError) as caught:
        fetch(serve_feed(server, body[:cut]), cache, window=WEEK)
    assert caught.value.code == "malformed" and "truncated" in caught.value.message


# --- odd answers ---


def test_a_304_to_a_first_request_is_a_clear_error(server: Server, cache: SourceCache) -> None:
    server.routes["/feed.xml"] = lambda request: Reply(304, b"")
    with pytest.raises(SourceError) as caught:
        fetch(f"feed:{server.url}/feed.xml", cache, window=WEEK)
    assert "304" in caught.value.message


@pytest.mark.parametrize("reset", ["99999999999999999999", "1e308", "-5", "nan"])
def test_an_absurd_rate_limit_reset_is_reported_not_a_crash(server: Server, cache: SourceCache, reset: str) -> None:
    server.routes["/feed.xml"] = lambda request: Reply(
        403, b"", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
    )
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        fetch(f"feed:{server.url}/feed.xml", cache, window=WEEK)
    assert caught.value.code in ("rate-limited", "forbidden")
    assert time.monotonic() - started < 10


@contextmanager
def raw_server(talk: Callable[[socket.socket], None]) -> Iterator[str]:
    """A server that writes whatever `talk` writes, as slowly or as long as it likes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.recv(65536)
            threading.Thread(target=_guarded, args=(talk, conn), daemon=True).start()

    accepting = threading.Thread(target=loop, daemon=True)
    accepting.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/feed.xml"
    finally:
        stop.set()
        # close() alone leaves the loop blocked in accept() and the port listening: it would answer one
        # later connection to it with this test's endless body. shutdown() wakes the accept first.
        with suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        accepting.join(timeout=5)
        listener.close()
    assert not accepting.is_alive(), "the raw server's accept loop outlived its test"


def _guarded(talk: Callable[[socket.socket], None], conn: socket.socket) -> None:
    try:
        talk(conn)
    except OSError:
        pass
    finally:
        conn.close()


def _byte_a_second(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(120):
        conn.sendall(b" ")
        time.sleep(0.25)


def _endless_chunks(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"<!-- " + b"x" * 4000 + b" -->"
    while True:
        conn.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        time.sleep(0.01)


def _endless_headers(conn: socket.socket) -> None:
    """A server that never finishes its header lines: no body ever starts, so only an overall deadline ends it."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n")
    for n in range(10_000):
        conn.sendall(f"X-More-{n}: yes\r\n".encode())
        time.sleep(0.05)


@pytest.mark.parametrize(
    "talk", [_byte_a_second, _endless_chunks, _endless_headers], ids=["trickle", "endless", "endless-headers"]
)
def test_a_fetch_has_an_overall_deadline(cache: SourceCache, talk: Callable[[socket.socket], None]) -> None:
    os.environ["HZ_FETCH_DEADLINE_S"] = "2"
    try:
        with raw_server(talk) as url:
            started = time.monotonic()
            with pytest.raises(SourceError) as caught:
                fetch(f"feed:{url}", cache, window=WEEK)
            elapsed = time.monotonic() - started
    finally:
        del os.environ["HZ_FETCH_DEADLINE_S"]
    assert elapsed < 6, elapsed
    assert caught.value.code in ("unavailable", "too-large")


def test_a_gzip_bomb_stops_at_the_inflated_cap(server: Server, cache: SourceCache) -> None:
    bomb = gzip.compress(b"<rss>" + b" " * (300 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 400 * 1024
    server.routes["/feed.xml"] = lambda request: Reply(
        200, bomb, {"Content-Type": "application/rss+xml", "Content-Encoding": "gzip"}
    )
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        fetch(f"feed:{server.url}/feed.xml", cache, window=WEEK)
    assert caught.value.code == "too-large"
    assert time.monotonic() - started < 5


# --- the repository's own files ---


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def test_a_feed_path_naming_a_folder_is_a_clear_error(tmp_path: Path, cache: SourceCache) -> None:
    root = _repo(tmp_path)
    (root / "feeds").mkdir()
    with pytest.raises(SourceError) as caught:
        fetch("feed:feeds", cache, root=root, window=WEEK)
    assert "folder" in caught.value.message


def test_a_fifo_as_a_feed_never_hangs(tmp_path: Path, cache: SourceCache) -> None:
    root = _repo(tmp_path)
    os.mkfifo(root / "feed.xml")
    started = time.monotonic()
    with pytest.raises(SourceError) as caught:
        fetch("feed:feed.xml", cache, root=root, window=WEEK)
    assert "FIFO" in caught.value.message and time.monotonic() - started < 2
