"""Lessons shown as "what I learned from you" with their hunks, dismissed but kept; summaries chain."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.canonical import fingerprint_bytes
from hz.heinzel import lifecycle
from hz.heinzel.summaries import chain, summary_payload
from hz.session.bodies import append_body, body_path
from hz.session.store import Store
from tests.heinzel.conftest import CONTRACT

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
HUNK = "-## Summary\n-…\n+## Risks\n+…\n"


@pytest.fixture
def agent() -> str:
    with Store.from_environ() as store:
        agent_id = lifecycle.create(
            store, CONTRACT, label="c", namespace="me", handle="@priya", origin=lifecycle.Origin("file"),
            now=NOW, approve=True,
        )  # fmt: skip
        directory = store.agent_dir(agent_id)
        append_body(directory, "t7", {"lessons": [{"sentence": "questions go first", "hunks": [HUNK]}]})
        with store.writer(agent_id) as w:
            w.append("lesson.recorded", {"lesson_id": "t7.1", "sentence": "questions go first",
                                         "hunks": [fingerprint_bytes(HUNK.encode())]}, turn="t7", now=NOW)  # fmt: skip
            w.append("lesson.recorded", {"lesson_id": "t7.2", "sentence": "say service, not repo path"},
                     turn="t7", now=NOW)  # fmt: skip
    return agent_id


def test_lessons_are_listed_with_their_hunks_and_dismissed_but_kept(hz: Any, agent: str) -> None:
    listed = hz("heinzel", "lessons", "weekly-report")
    assert listed.out == (
        "what weekly-report learned from you\n"
        "1. questions go first\n"
        "   t7.1 · 2026-11-02T09:00:00.000Z\n"
        "   | -## Summary\n   | -…\n   | +## Risks\n   | +…\n"
        "2. say service, not repo path\n"
        "   t7.2 · 2026-11-02T09:00:00.000Z\n"
    )
    assert hz("heinzel", "dismiss", "weekly-report", "2").out == "lesson 2 of weekly-report dismissed\n"
    assert (
        hz("heinzel", "dismiss", "weekly-report", "t7.2").out == "lesson t7.2 of weekly-report was already dismissed\n"
    )
    missing = hz("heinzel", "dismiss", "weekly-report", "t9.9")
    assert missing.exit_code == 1
    assert missing.err == "error: weekly-report has no lesson t9.9\n  hint: hz heinzel lessons weekly-report\n"
    shown = hz("heinzel", "show", "weekly-report").out
    assert "what I learned from you\n  1. questions go first\n  2. say service, not repo path (dismissed)\n" in shown


def test_an_expired_body_is_a_visible_gap(hz: Any, agent: str) -> None:
    with Store.from_environ() as store:
        os.unlink(body_path(store.agent_dir(agent), "t7"))
    out = hz("heinzel", "lessons", "weekly-report").out
    gap = "   | (the diff expired with the turn's body)\n"
    assert "1. questions go first\n   t7.1 · 2026-11-02T09:00:00.000Z\n" + gap in out


def test_lessons_never_touch_the_contract(agent: str) -> None:
    with Store.from_environ() as store:
        row = store.index.agent(agent)
        assert (row["contract_version"], row["state"]) == (1, "asleep")  # type: ignore[index]
        contract = (store.agent_dir(agent) / "contract" / "v1.prose.md").read_text(encoding="utf-8")
        assert contract == CONTRACT
        assert sorted(p.name for p in (store.agent_dir(agent) / "contract").iterdir()) == ["v1.json", "v1.prose.md"]


def test_summaries_have_the_fixed_fields_and_chain(agent: str, tmp_path: Path) -> None:
    with Store.from_environ() as store:
        with store.writer(agent) as w:
            first = summary_payload(store.read(agent).events, asset="the weekly report", wants="short, risks first",
                                    sources=["merged"])  # fmt: skip
            w.append("summary.written", first, now=NOW)
        with store.writer(agent) as w:
            second = summary_payload(
                store.read(agent).events, asset="the weekly report", wants="risks first",
                decisions=["no ticket numbers"], next_deadline=NOW, sources=["merged"],
            )  # fmt: skip
            w.append("summary.written", second, now=NOW)
        events = store.read(agent).events
        summaries = chain(events)
        assert [s.data.get("previous_seq") for s in summaries] == [summaries[1].seq, None]
        assert summaries[0].data == {
            "asset": "the weekly report", "wants": "risks first", "decisions": ["no ticket numbers"],
            "open_questions": [], "next_deadline": "2026-11-02T09:00:00Z", "sources": ["merged"],
            "previous_seq": summaries[1].seq, "kept_turns": 5,
        }  # fmt: skip
        assert store.index.agent(agent)["last_summary_seq"] == summaries[0].seq  # type: ignore[index]
