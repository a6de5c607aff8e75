from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.daemon import tick
from hz.session.spine import SPINE, read_spine
from tests.turn.agents import adopt, contract_text, home

AGENT = "hz-01JC0000000000000000000001"
MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)


def spine_kinds(agent: str) -> list[str]:
    return [e.kind for e in read_spine(home() / "heinzel" / agent / SPINE).events]


def test_nothing_is_due_before_the_slot_and_the_slot_drafts_once(repo: Path) -> None:
    adopt(contract_text(), agent_id=AGENT, now=MONDAY)
    assert tick(root=repo, now=MONDAY).woken == []
    report = tick(root=repo, now=FRIDAY)
    assert report.woken == [
        {
            "agent": "weekly-note",
            "action": "started",
            "turn": report.woken[0]["turn"],
            "disposition": "drafted",
            "usd": 0.0,
        }
    ]
    assert (repo / "notes/2026-W44.md").read_text().startswith("🧝 DRAFT (weekly-note v1)")
    assert tick(root=repo, now=FRIDAY).woken == []
    assert spine_kinds(AGENT).count("turn.finished") == 1


def test_if_moved_skips_a_slot_where_nothing_moved_in_one_line(repo: Path) -> None:
    adopt(contract_text(render="if-moved"), agent_id=AGENT, now=MONDAY)
    tick(root=repo, now=FRIDAY)
    before = len(spine_kinds(AGENT))
    report = tick(root=repo, now=datetime(2026, 11, 6, 15, 0, tzinfo=UTC))
    assert report.woken == [
        {"agent": "weekly-note", "action": "skipped", "reason": "nothing-moved", "cause": "schedule"}
    ]
    assert spine_kinds(AGENT)[before:] == ["turn.skipped"]


@pytest.mark.parametrize("wakes", [1, 2])
def test_max_wakes_per_tick_defers_the_rest(repo: Path, wakes: int) -> None:
    config = Path(__import__("os").environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f"[heinzel]\nmax_wakes_per_tick = {wakes}\n")
    ids = [f"hz-01JC000000000000000000000{i}" for i in range(3)]
    for i, agent in enumerate(ids):
        adopt(contract_text(f"note-{i}", target=f"file:notes/{i}-{{{{slot:%G-W%V}}}}.md"), agent_id=agent, now=MONDAY)
    report = tick(root=repo, now=FRIDAY)
    assert [e["agent"] for e in report.woken] == [f"note-{i}" for i in range(wakes)]
    assert report.deferred == [f"note-{i}" for i in range(wakes, 3)]
    second = tick(root=repo, now=FRIDAY)
    assert len(second.woken) == min(wakes, 3 - wakes)
