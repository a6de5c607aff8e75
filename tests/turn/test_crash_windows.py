"""A kill in either crash window of placing a draft, and the next tick 38 minutes later (issue 24,
finding 3): the turn finishes drafted, the new draft is recorded once, and `hz drafts` lists its key.
Real `kill -9` at hz's crash points; the model is the `openai` client against the loopback fake."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, configure
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)


def killed_friday(repo: Path, point: str) -> str:
    """Monday's draft, then Friday's turn killed at `point`; the agent's id."""
    agent = adopt(contract_text(target="file:notes/weekly.md"), now=MONDAY)
    tick(root=repo, now=MONDAY)
    argv = [sys.executable, "-m", "hz", "tick", "--now", "2026-10-30T15:00Z"]
    died = subprocess.run(argv, cwd=repo, env={**os.environ, "HZ_CRASH_AT": point},
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert died.returncode == -signal.SIGKILL, died.stdout + died.stderr
    return agent


@pytest.mark.parametrize("point", ["effect.performed", "draft.placed"])
def test_a_kill_while_placing_and_a_tick_38_minutes_later_finish_the_turn_drafted(
    repo: Path, hz: Any, point: str
) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        agent = killed_friday(repo, point)
        later = tick(root=repo, now=FRIDAY + timedelta(minutes=38))
        assert [(e["action"], e["disposition"], e["usd"]) for e in later.woken] == [("resumed", "drafted", 0.001)]
        key = f"{agent}@v1@2026-10-30T15:00Z@file:notes/weekly.md"
        events = read_spine(home() / "heinzel" / agent / SPINE).events
        assert [e.data["key"] for e in events if e.kind == "draft.placed"][1:] == [key]
        assert [d["key"] for d in json.loads(hz("drafts", "--json").out)] == [key]
        assert len(server.requests) == 2  # Monday's and Friday's: the resume paid for nothing


def test_a_turn_stopped_after_a_kill_between_the_effect_and_its_record_still_records_the_draft(
    repo: Path, hz: Any
) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        agent = killed_friday(repo, "effect.performed")
        stopped = hz("heinzel", "stop", "weekly-note")
        assert (stopped.exit_code, stopped.out) == (0, "weekly-note: stopped -> abandoned (stopped) 0.0010 USD\n")
        key = f"{agent}@v1@2026-10-30T15:00Z@file:notes/weekly.md"
        assert [d["key"] for d in json.loads(hz("drafts", "--json").out)] == [key]
