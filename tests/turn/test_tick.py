from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)


def spine_kinds(agent: str) -> list[str]:
    return [e.kind for e in read_spine(home() / "heinzel" / agent / SPINE).events]


def test_nothing_is_due_before_the_slot_and_the_slot_drafts_once(repo: Path) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    created = tick(root=repo, now=MONDAY)
    assert [(e["action"], e["disposition"]) for e in created.woken] == [("started", "drafted")]
    assert "@2026-10-26T09:00Z@" in (repo / "notes/2026-W44.md").read_text().splitlines()[0]
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
    assert spine_kinds(agent).count("turn.finished") == 2


def test_if_moved_skips_a_slot_where_nothing_moved_in_one_line(repo: Path) -> None:
    agent = adopt(contract_text(render="if-moved"), now=MONDAY)
    tick(root=repo, now=FRIDAY)
    before = len(spine_kinds(agent))
    report = tick(root=repo, now=datetime(2026, 11, 6, 15, 0, tzinfo=UTC))
    assert report.woken == [
        {"agent": "weekly-note", "action": "skipped", "reason": "nothing-moved", "cause": "schedule"}
    ]
    assert spine_kinds(agent)[before:] == ["turn.skipped"]
    assert len(list((home() / "heinzel" / agent / "turns").glob("*.jsonl"))) == 1  # the skip has no body


@pytest.mark.parametrize("wakes", [1, 2])
def test_max_wakes_per_tick_defers_the_rest(repo: Path, wakes: int) -> None:
    config = Path(__import__("os").environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(f"[heinzel]\nmax_wakes_per_tick = {wakes}\n")
    for i in range(3):
        adopt(contract_text(f"note-{i}", target=f"file:notes/{i}-{{{{slot:%G-W%V}}}}.md"), now=MONDAY)
    report = tick(root=repo, now=FRIDAY)
    assert [e["agent"] for e in report.woken] == [f"note-{i}" for i in range(wakes)]
    assert report.deferred == [f"note-{i}" for i in range(wakes, 3)]
    second = tick(root=repo, now=FRIDAY)
    assert len(second.woken) == min(wakes, 3 - wakes)


def test_summaries_are_written_at_the_budget_and_chain(repo: Path) -> None:
    config = Path(__import__("os").environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("[heinzel]\nsummary_after_turns = 2\n")
    agent = adopt(contract_text(), now=MONDAY)
    for week in range(8):
        tick(root=repo, now=FRIDAY + timedelta(weeks=week) if week else MONDAY)
    events = read_spine(home() / "heinzel" / agent / SPINE).events
    summaries = [e for e in events if e.kind == "summary.written"]
    assert len(summaries) == 2
    assert "previous_seq" not in summaries[0].data
    assert summaries[1].data["previous_seq"] == summaries[0].seq
    assert set(summaries[0].data) >= {"asset", "wants", "decisions", "open_questions", "sources", "kept_turns"}
    assert [e.data["kind"] for e in events if e.kind == "usage"] == ["summary", "summary"]
