"""Real `kill -9` at every step boundary and inside the effect ledger: the next tick finishes the turn
with exactly one draft placed, the think step run to its checkpoint once, and the chain intact."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
POINTS = [
    "turn.started",
    "step.gather",
    "step.think",
    "step.outcome",
    "effect.started",
    "effect.performed",
    "draft.placed",
    "step.act",
    "turn.finished",
]


def hz_tick(repo: Path, crash_at: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("HZ_CRASH_AT", None)
    if crash_at:
        env["HZ_CRASH_AT"] = crash_at
    return subprocess.run(
        [sys.executable, "-m", "hz", "tick", "--now", "2026-10-30T15:00Z"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
def test_a_kill_at_any_point_leaves_one_draft_and_one_finished_turn(repo: Path, point: str) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    killed = hz_tick(repo, point)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    again = tick(root=repo, now=FRIDAY)
    expected = [] if point == "turn.finished" else ["drafted"]
    assert [e["disposition"] for e in again.woken] == expected
    spine = read_spine(home() / "heinzel" / agent / SPINE)
    assert spine.problems == []
    kinds = [e.kind for e in spine.events]
    assert kinds.count("turn.started") == 1
    assert kinds.count("turn.finished") == 1
    assert kinds.count("draft.placed") == 1
    assert kinds.count("effect.started") == 1
    assert kinds.count("effect.done") == 1
    steps = [e.data["step"] for e in spine.events if e.kind == "turn.step"]
    assert steps == ["gather", "think", "outcome", "act"]
    finished = next(e for e in spine.events if e.kind == "turn.finished")
    assert finished.data["disposition"] == "drafted"
    draft = (repo / "notes/2026-W44.md").read_text()
    assert draft.count("🧝 DRAFT") == 1
    assert tick(root=repo, now=FRIDAY).woken == []
