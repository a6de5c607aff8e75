"""Feeds as people write them: titles with markup, relative links, documents cut off inside an element."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources.helpers import fetch
from tests.sources.server import Reply, Server, static
from tests.sources.test_feed_world import item, rss, serve_feed

WEEK = timedelta(days=7)


@pytest.mark.parametrize(
    "title",
    [
        "&lt;b&gt;Ship &amp;amp; tell&lt;/b&gt;",  # escaped HTML, as most RSS writes it
        "<![CDATA[<b>Ship &#38; tell</b>]]>",
        "<![CDATA[<p>Ship\n   &amp;  tell</p>]]>",
        "Ship &amp;  \n tell",
    ],
)
def test_a_title_is_plain_text_and_re_wrapping_it_never_moves_the_fingerprint(
    server: Server, tmp_path: Path, title: str
) -> None:
    plain = fetch(
        serve_feed(server, rss(item("Ship &amp; tell", "https://e.org/1"))), SourceCache(tmp_path / "a"), window=WEEK
    )
    wrapped = fetch(serve_feed(server, rss(item(title, "https://e.org/1"))), SourceCache(tmp_path / "b"), window=WEEK)
    assert [i["title"] for i in wrapped.facets["items"]] == ["Ship & tell"]
    assert wrapped.fingerprints == plain.fingerprints


def test_a_title_marked_as_plain_text_keeps_its_angle_brackets(server: Server, cache: SourceCache) -> None:
    result = fetch(serve_feed(server, rss(item("1 &lt; 2 and 3 &gt; 2", "https://e.org/1"))), cache, window=WEEK)
    assert [i["title"] for i in result.facets["items"]] == ["1 < 2 and 3 > 2"]


def test_a_document_that_ends_inside_an_element_is_refused(server: Server, cache: SourceCache) -> None:
    uri = serve_feed(server, b"<rss><channel><item><title>unterminated")
    with pytest.raises(SourceError) as caught:
        fetch(uri, cache, window=WEEK)
    assert caught.value.code == "malformed"
    assert caught.value.message == f"{uri} is truncated: the document ends before its root element closes"
    assert caught.value.hint == "the server or the file is incomplete; hz reads it again at the next recheck"


@pytest.mark.parametrize("end", [b"\n", b"\n\n  ", b"<description>half", b"<link>https://e.org/2</li"])
def test_a_document_cut_anywhere_inside_is_refused_whatever_trails_it(
    server: Server, cache: SourceCache, end: bytes
) -> None:
    body = rss(item("one", "https://e.org/1")).split(b"</channel>")[0] + b"<item><title>two</title>" + end
    with pytest.raises(SourceError) as caught:
        fetch(serve_feed(server, body), cache, window=WEEK)
    assert "is truncated" in caught.value.message


def test_a_whole_document_with_an_undefined_entity_is_still_read(server: Server, cache: SourceCache) -> None:
    body = rss(item("caf&eacute; &nbsp;news", "https://e.org/1"))  # no DTD: expat stops at the entity
    result = fetch(serve_feed(server, body), cache, window=WEEK)
    assert [i["url"] for i in result.facets["items"]] == ["https://e.org/1"]


def test_relative_links_resolve_against_the_url_the_feed_came_from(server: Server, cache: SourceCache) -> None:
    server.routes["/blog/feed.xml"] = static(
        rss(item("a", "/relative/link"), item("b", "posts/2")), content_type="application/rss+xml"
    )
    result = fetch(f"feed:{server.url}/blog/feed.xml", cache, window=WEEK)
    assert result.facets["links"] == [f"{server.url}/blog/posts/2", f"{server.url}/relative/link"]


def test_relative_links_resolve_after_a_redirect(server: Server, cache: SourceCache) -> None:
    server.routes["/old.xml"] = lambda request: Reply(301, b"", {"Location": "/moved/feed.xml"})
    server.routes["/moved/feed.xml"] = static(rss(item("a", "post")), content_type="application/rss+xml")
    result = fetch(f"feed:{server.url}/old.xml", cache, window=WEEK)
    assert result.facets["links"] == [f"{server.url}/moved/post"]


def test_content_location_sets_the_base(server: Server, cache: SourceCache) -> None:
    uri = serve_feed(server, rss(item("a", "post/1")), Content_Location="https://blog.example.org/en/feed.xml")
    result = fetch(uri, cache, window=WEEK)
    assert result.facets["links"] == ["https://blog.example.org/en/post/1"]


def test_xml_base_wins_over_the_response(server: Server, cache: SourceCache) -> None:
    atom = (
        b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://a.example/news/">'
        b"<title>t</title><entry><title>one</title><link href='2026/one'/><id>2026/one</id>"
        b"<published>2026-11-27T09:00:00Z</published></entry></feed>"
    )
    uri = serve_feed(server, atom, Content_Location="https://elsewhere.example/feed.xml")
    result = fetch(uri, cache, window=WEEK)
    assert result.facets["links"] == ["https://a.example/news/2026/one"]


def test_a_feed_file_keeps_its_relative_links(tmp_path: Path, cache: SourceCache) -> None:
    (tmp_path / "feed.xml").write_bytes(rss(item("a", "/relative/link")))
    result = fetch("feed:feed.xml", cache, root=tmp_path, window=WEEK)
    assert result.facets["links"] == ["/relative/link"]


def test_a_document_missing_only_the_last_angle_bracket_is_read(server: Server, cache: SourceCache) -> None:
    body = rss(item("one", "https://e.org/1")).removesuffix(b">")  # `…</rss`: every item is there
    assert [i["url"] for i in fetch(serve_feed(server, body), cache, window=WEEK).facets["items"]] == [
        "https://e.org/1"
    ]
