"""An input that moved wakes exactly the agents that watch it, once per new fingerprint."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def watching(name: str, source: str) -> str:
    text = contract_text(name, target=f"file:notes/{name}.md")
    text = text.replace("  outputs:\n", f'  inputs:\n    tracker:\n      source: "{source}"\n  outputs:\n', 1)
    return text.replace("### Maintains", "### Requires\n\n- `tracker`: the tracker export.\n\n### Maintains", 1)


def test_a_moved_input_wakes_its_watchers_only(repo: Path) -> None:
    (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1"}]))
    (repo / "other.json").write_text(json.dumps([{"title": "OPS-1"}]))
    watcher = adopt(watching("watcher", "file:tracker.json"), now=MONDAY)
    adopt(watching("bystander", "file:other.json"), now=MONDAY)
    created = tick(root=repo, now=MONDAY)
    assert sorted(e["agent"] for e in created.woken) == ["bystander", "watcher"]
    assert tick(root=repo, now=MONDAY + timedelta(minutes=5)).woken == []

    (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1"}, {"title": "CHK-2"}]))
    moved = tick(root=repo, now=MONDAY + timedelta(minutes=10))
    assert [(e["agent"], e["disposition"]) for e in moved.woken] == [("watcher", "drafted")]
    started = [e for e in read_spine(home() / "heinzel" / watcher / SPINE).events if e.kind == "turn.started"]
    assert started[-1].data["cause"] == "source-changed"
    assert started[-1].data["keys"][0].startswith(f"{watcher}@tracker:sha256:")
    assert tick(root=repo, now=MONDAY + timedelta(minutes=15)).woken == []
