"""What a person can read and steer of a session (issue 24, finding 7): `hz heinzel show` (and `--json`)
shows the latest summary, and `hz heinzel hide` keeps a turn's line from the model, visible in show."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.tick.daemon import tick
from tests.fakes.openai_server import ScriptedOpenAI
from tests.spend.test_caps_hold import DRAFT, configure
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
SUMMARY = {"kind": "summary", "report": "summarised", "summary": {
    "asset": "the weekly note", "user_wants": "short notes, risks first", "decisions": ["risks go first"],
    "open_questions": ["which week counts?"], "sources_watched": ["file:tracker.json"]}}  # fmt: skip


def test_show_has_the_latest_summary_and_a_hidden_turn_leaves_the_models_view(repo: Path, hz: Any) -> None:
    first = {**DRAFT, "report": "the first note, drafted"}
    with ScriptedOpenAI([first, DRAFT, DRAFT, SUMMARY, DRAFT], completion_tokens=100) as server:
        configure(server, "max_usd = 1.0\nsummary_after_turns = 1\nsummary_keep_turns = 5")
        adopt(contract_text(), now=MONDAY)
        tick(root=repo, now=MONDAY)
        tick(root=repo, now=FRIDAY)
        tick(root=repo, now=FRIDAY + timedelta(days=7))  # two turns before it: this one ends with the summary
        shown = json.loads(hz("heinzel", "show", "weekly-note", "--json").out)
        assert {k: shown["summary"][k] for k in ("asset", "wants", "decisions", "open_questions")} == {
            "asset": "the weekly note", "wants": "short notes, risks first",
            "decisions": ["risks go first"], "open_questions": ["which week counts?"]}  # fmt: skip
        text = hz("heinzel", "show", "weekly-note").out
        assert "\nlatest summary\n" in text and "  you want: short notes, risks first\n" in text

        turn = shown["timeline"][0]["turn"]
        hidden = hz("heinzel", "hide", "weekly-note", turn)
        assert (hidden.exit_code, hidden.out) == (
            0, f"weekly-note: turn {turn} hides it from the model; the record itself is unchanged\n")  # fmt: skip
        again = json.loads(hz("heinzel", "show", "weekly-note", "--json").out)
        assert [(e["target"], e["replacement"]) for e in again["context_edits"]] == [(turn, None)]
        assert "(hidden from the model)" in hz("heinzel", "show", "weekly-note").out
        tick(root=repo, now=FRIDAY + timedelta(days=14))
        assert "the first note, drafted" not in json.dumps(server.requests[-1][2]["messages"])
        assert "the first note, drafted" in json.dumps(server.requests[2][2]["messages"])


def test_hide_refuses_what_the_agent_never_had(repo: Path, hz: Any) -> None:
    adopt(contract_text(), now=MONDAY)
    refused = hz("heinzel", "hide", "weekly-note", "01JB0000000000000000000000")
    assert (refused.exit_code, refused.err) == (1, "error: weekly-note has no finished turn or lesson "
        "01JB0000000000000000000000\n  hint: hz heinzel show weekly-note --json lists its turns and lessons "
        "with their ids\n")  # fmt: skip
