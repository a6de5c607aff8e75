from __future__ import annotations

import os
from pathlib import Path

from hz.session.spine import SPINE, read_spine
from hz.turn import engine, history
from hz.turn.causes import Cause, asked_key, coalesce, schedule_key
from tests.turn.helpers import AGENT, FRIDAY, Clock, agent_dir, deps, journal, plan


def home() -> Path:
    return Path(os.environ["HZ_HOME"])


def kinds(path: Path) -> list[str]:
    return [e.kind for e in read_spine(path / SPINE).events]


def test_a_schedule_turn_walks_five_steps_and_places_one_draft(tmp_path: Path) -> None:
    clock = Clock()
    wake = coalesce(AGENT, [Cause("schedule", schedule_key(AGENT, FRIDAY), FRIDAY)])
    with journal(home(), clock) as j:
        result = engine.start(j, plan(tmp_path), wake, deps(clock))
    assert (result.disposition, result.usd, result.follow_up) == ("drafted", 0.0, ())
    assert kinds(agent_dir(home())) == [
        "turn.started",
        "turn.step",
        "turn.step",
        "turn.step",
        "effect.started",
        "effect.done",
        "draft.placed",
        "turn.step",
        "turn.finished",
    ]
    events = read_spine(agent_dir(home()) / SPINE).events
    assert [e.data["step"] for e in events if e.kind == "turn.step"] == ["gather", "think", "outcome", "act"]
    draft = (tmp_path / "reports/2026-W44.md").read_text().splitlines()
    key = f"{AGENT}@v1@2026-10-30T15:00Z@file:reports/2026-W44.md"
    assert draft[0] == f"🧝 DRAFT (weekly-report v1): edit, then delete this line to approve · {key}"
    assert draft[1] == "## summary"
    assert events[-1].data["disposition"] == "drafted"
    assert history.settled_keys(events) == {schedule_key(AGENT, FRIDAY)}


def test_a_request_taken_in_during_act_becomes_one_follow_up(tmp_path: Path) -> None:
    from hz.session.inbox import put_request

    clock = Clock()
    wake = coalesce(AGENT, [Cause("schedule", schedule_key(AGENT, FRIDAY), FRIDAY)])
    with journal(home(), clock) as j:
        put_request(agent_dir(home()), "req-1", "also incidents", now=clock(), when_busy="follow-up")
        result = engine.start(j, plan(tmp_path), wake, deps(clock))
        assert [c.key for c in result.follow_up] == [asked_key(AGENT, "req-1")]
        follow = coalesce(AGENT, result.follow_up)
        second = engine.start(j, plan(tmp_path), follow, deps(clock))
    assert second.disposition == "drafted"
    events = read_spine(agent_dir(home()) / SPINE).events
    assert [e.data["cause"] for e in events if e.kind == "turn.started"] == ["schedule", "asked"]
    assert [e.kind for e in events if e.kind == "turn.requested"] == ["turn.requested"]
