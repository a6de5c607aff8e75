from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources.conftest import NOW
from tests.sources.helpers import fetch
from tests.sources.server import Server, payload, static, status

WEEK = timedelta(days=7)
RSS = payload("rss.xml")


def _serve(server: Server, body: bytes, *, etag: str | None = None, **headers: str) -> str:
    server.routes["/feed.xml"] = static(body, content_type="application/rss+xml", etag=etag, **headers)
    return f"feed:{server.url}/feed.xml"


def test_items_in_the_window_with_canonical_urls(server: Server, cache: SourceCache) -> None:
    result = fetch(_serve(server, RSS), cache, window=WEEK)
    assert result.facets["items"] == [
        {
            "url": "https://blog.example.org/engineering/retries",
            "title": "Retries that do not hurt",
            "summary": "Backoff, jitter and budgets.",
            "author": "Jonas E",
            "published": "2026-11-23T09:00:00Z",
        },
        {
            "url": "https://blog.example.org/engineering/sqlite-wal",
            "title": "Why we moved to SQLite WAL",
            "summary": "Readers no longer block writers.",
            "author": "Ana P",
            "published": "2026-11-25T09:00:00Z",
        },
    ]
    assert result.facets["links"] == [
        "https://blog.example.org/engineering/retries",
        "https://blog.example.org/engineering/sqlite-wal",
    ]


def test_order_updated_times_and_tracking_parameters_are_immaterial(server: Server, tmp_path: Path) -> None:
    atom = payload("atom.xml")
    first = fetch(_serve(server, atom), SourceCache(tmp_path / "a"), window=WEEK).fingerprints
    entries = atom.split(b"<entry>")
    reordered = entries[0] + b"<entry>" + entries[2].replace(b"</feed>", b"") + b"<entry>" + entries[1] + b"</feed>"
    reordered = reordered.replace(b"2026-11-27T07:00:00Z", b"2026-11-28T01:00:00Z").replace(
        b"fbclid=abc123", b"utm_campaign=x"
    )
    second = fetch(_serve(server, reordered), SourceCache(tmp_path / "b"), window=WEEK).fingerprints
    assert second == first


def test_a_new_item_moves_the_fingerprints(server: Server, tmp_path: Path) -> None:
    first = fetch(_serve(server, RSS), SourceCache(tmp_path / "a"), window=WEEK).fingerprints
    extra = (
        b"<item><title>New</title><link>https://blog.example.org/new</link>"
        b"<pubDate>Fri, 27 Nov 2026 09:00:00 GMT</pubDate></item>"
    )
    second = fetch(
        _serve(server, RSS.replace(b"<item>", extra + b"<item>", 1)), SourceCache(tmp_path / "b"), window=WEEK
    )
    assert second.fingerprints["items"] != first["items"]
    assert second.fingerprints["links"] != first["links"]


def test_an_item_outside_the_window_is_immaterial(server: Server, tmp_path: Path) -> None:
    first = fetch(_serve(server, RSS), SourceCache(tmp_path / "a"), window=WEEK).fingerprints
    changed = RSS.replace(b"Old news.", b"Old news, reworded.")
    assert fetch(_serve(server, changed), SourceCache(tmp_path / "b"), window=WEEK).fingerprints == first


def test_304_keeps_the_previous_fingerprint(server: Server, cache: SourceCache) -> None:
    uri = _serve(server, RSS, etag='"v1"', Last_Modified="Fri, 27 Nov 2026 06:00:00 GMT")
    first = fetch(uri, cache, window=WEEK)
    later = fetch(uri, cache, window=WEEK, now=NOW + timedelta(minutes=1))
    assert later.how == "not-modified"
    assert later.fingerprints == first.fingerprints
    assert server.requests[1].headers["if-none-match"] == '"v1"'
    assert server.requests[1].headers["if-modified-since"] == "Fri, 27 Nov 2026 06:00:00 GMT"


def test_a_feed_file_in_the_repository(tmp_path: Path, cache: SourceCache) -> None:
    (tmp_path / "feeds").mkdir()
    (tmp_path / "feeds" / "team.xml").write_bytes(RSS)
    result = fetch("feed:feeds/team.xml", cache, root=tmp_path, window=WEEK)
    assert len(result.facets["items"]) == 2


def test_a_feed_file_outside_the_repository_is_refused(tmp_path: Path, cache: SourceCache) -> None:
    with pytest.raises(SourceError) as caught:
        fetch("feed:../elsewhere.xml", cache, root=tmp_path / "repo")
    assert caught.value.render() == (
        "error: feed:../elsewhere.xml: the path goes up with '..'\n"
        "  hint: name a file inside the repository, relative to its root, such as docs/notes.md"
    )


def _failure(uri: str, cache: SourceCache) -> SourceError:
    with pytest.raises(SourceError) as caught:
        fetch(uri, cache, window=WEEK)
    assert not cache.root.exists(), "a failed fetch writes nothing"
    return caught.value


def test_a_malformed_feed_is_a_clear_error(server: Server, cache: SourceCache) -> None:
    error = _failure(_serve(server, b"<html><body>Sign in</body>"), cache)
    assert error.code == "malformed"
    assert error.message.startswith(f"feed:{server.url}/feed.xml is not an RSS or Atom feed")
    assert error.hint == "check the URL serves the feed itself"


def test_404_is_not_found(server: Server, cache: SourceCache) -> None:
    error = _failure(f"feed:{server.url}/missing.xml", cache)
    assert error.render() == (
        f"error: the feed server has nothing at {server.url}/missing.xml (404 Not Found)\n"
        "  hint: check the source's name"
    )


def test_5xx_is_a_server_error(server: Server, cache: SourceCache) -> None:
    server.routes["/feed.xml"] = status(503)
    error = _failure(f"feed:{server.url}/feed.xml", cache)
    assert error.render() == (
        f"error: the feed server failed to answer for {server.url}/feed.xml (503 Service Unavailable: nope)\n"
        "  hint: it is probably temporary; hz tries again at the next recheck"
    )


def test_an_unreachable_server_is_unavailable(cache: SourceCache) -> None:
    error = _failure("feed:http://127.0.0.1:9/feed.xml", cache)
    assert error.code == "unavailable"
    assert error.message == "could not reach the feed server at http://127.0.0.1:9/feed.xml (ConnectError)"
