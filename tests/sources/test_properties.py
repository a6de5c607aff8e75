"""Properties of canonicalizers: real content never canonicalizes to nothing, order never matters,
and different content never shares a fingerprint."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.sources.base import SourceSpec
from hz.sources.cache import SourceCache
from hz.sources.canonical import facet_fingerprints
from hz.sources.resolve import resolve
from tests.sources.conftest import NOW

words = st.text(alphabet="abcdefghij XYZ<>&é", min_size=1, max_size=12).filter(lambda t: t.strip("<> "))
items = st.lists(st.tuples(st.integers(0, 50), words), min_size=1, max_size=6, unique_by=lambda t: t[0])


def _rss(entries: list[tuple[int, str]]) -> bytes:
    from html import escape

    body = "".join(
        f"<item><title>{escape(title)}</title><link>https://x.example/p/{n}?utm_source=a</link>"
        f"<pubDate>Fri, 27 Nov 2026 0{n % 10}:00:00 GMT</pubDate></item>"
        for n, title in entries
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{body}</channel></rss>'.encode()


def _facets(root: Path, body: bytes, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    (root / f"{name}.xml").write_bytes(body)
    result = resolve(
        SourceSpec(f"feed:{name}.xml", window=timedelta(days=7)),
        SourceCache(root / f"cache-{name}"),
        slot=NOW,
        now=NOW,
        environ={},
        root=root,
    )
    return dict(result.facets), dict(result.fingerprints)


@settings(max_examples=25, deadline=None)
@given(items, st.randoms())
def test_feed_items_survive_canonicalization_in_any_order(tmp_path_factory: Any, entries: Any, rnd: Any) -> None:
    root = tmp_path_factory.mktemp("feed")
    facets, fps = _facets(root, _rss(entries), "a")
    assert len(facets["items"]) == len(entries)
    assert all(item["title"] and item["url"] for item in facets["items"])
    shuffled = list(entries)
    rnd.shuffle(shuffled)
    assert _facets(root, _rss(shuffled), "b")[1] == fps


@settings(max_examples=25, deadline=None)
@given(items, words)
def test_a_changed_title_always_moves_the_items_facet(tmp_path_factory: Any, entries: Any, title: str) -> None:
    root = tmp_path_factory.mktemp("feed")
    changed = [(entries[0][0], title), *entries[1:]]
    before = _facets(root, _rss(entries), "a")
    after = _facets(root, _rss(changed), "b")
    same_title = " ".join(title.split()) == " ".join(entries[0][1].split())
    assert (after[1]["items"] == before[1]["items"]) == same_title
    assert after[1]["links"] == before[1]["links"]


@given(st.lists(st.text(max_size=5), min_size=2, max_size=5, unique=True))
def test_distinct_texts_per_path_never_collapse(texts: list[str]) -> None:
    fps = {facet_fingerprints({"text": {"a.md": t}})["text"] for t in texts}
    assert len(fps) == len(texts)
