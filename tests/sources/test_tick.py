"""Sources under the real tick: one fetch per source per tick, and a moved input wakes exactly its readers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.tick.daemon import tick
from tests.sources.contracts import contract_text
from tests.sources.helpers import commit, days_ago
from tests.sources.server import Server, payload, static
from tests.turn.agents import adopt

RSS = payload("rss.xml")
NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def test_a_moved_feed_wakes_only_its_reader(repo: Path, server: Server) -> None:
    server.routes["/a.xml"] = static(RSS)
    server.routes["/b.xml"] = static(RSS.replace(b"Retries", b"Other"))
    commit(repo, "README.md", "x\n", days_ago(1), "start")
    for name, path in (("reader-a", "a"), ("reader-b", "b")):
        text = contract_text(name, {"news": {"source": f"feed:{server.url}/{path}.xml"}})
        adopt(text.replace("scope: personal", 'scope: personal\n  schedule: "0 9 * * MON"'), now=NOW, namespace="me")

    first = tick(root=repo, now=NOW)
    assert sorted(e["agent"] for e in first.woken) == ["reader-a", "reader-b"]
    assert server.count() == 2

    quiet = tick(root=repo, now=NOW + timedelta(minutes=1))
    assert quiet.woken == []
    assert server.count() == 4  # no recheck: each source polled once per tick

    server.routes["/a.xml"] = static(RSS.replace(b"Retries that", b"Retries which"))
    moved = tick(root=repo, now=NOW + timedelta(minutes=2))
    assert [(e["agent"], e["action"]) for e in moved.woken] == [("reader-a", "started")]
    assert server.count() == 6
