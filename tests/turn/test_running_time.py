"""A turn's timeout and its `duration_s` count its own running time: never a wait, never the time a killed
process lay dead before the next tick took the turn over (issue 24, finding 3)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.session.envelope import Envelope
from hz.session.spine import SPINE, read_spine
from hz.turn.history import running_seconds
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, configure
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def _tick(repo: Path, now: datetime, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"HZ_CRASH_AT": crash} if crash else {})}
    argv = [sys.executable, "-m", "hz", "tick", "--now", now.strftime("%Y-%m-%dT%H:%MZ")]
    return subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False)


def _finished(agent: str) -> list[dict[str, object]]:
    events = read_spine(home() / "heinzel" / agent / SPINE).events
    return [dict(e.data) for e in events if e.kind == "turn.finished"]


def test_a_turn_killed_at_gather_and_taken_over_38_minutes_later_finishes_drafted(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        agent = adopt(contract_text(), now=MONDAY)
        died = _tick(repo, MONDAY, crash="step.gather")
        assert died.returncode == -signal.SIGKILL, died.stderr
        later = _tick(repo, MONDAY + timedelta(minutes=38))
        assert later.stdout == "weekly-note: resumed -> drafted 0.0010 USD\n", later.stdout + later.stderr
        (finished,) = _finished(agent)
        assert finished["disposition"] == "drafted"
        assert 0 < float(str(finished["duration_s"])) < 60  # the 38 dead minutes are not its running time


def _event(seq: int, minute: float, kind: str) -> Envelope:
    ts = (MONDAY + timedelta(minutes=minute)).isoformat().replace("+00:00", "Z")
    return Envelope(seq=seq, ts=ts, prev=None, kind=kind, data={}, turn="T")


def test_running_time_leaves_out_waits_and_the_spans_a_crash_left_dead() -> None:
    events = [_event(1, 0, "turn.started"), _event(2, 2, "turn.step"), _event(3, 3, "turn.waiting"),
              _event(4, 63, "turn.resumed"), _event(5, 64, "turn.step")]  # fmt: skip
    dead = [(MONDAY + timedelta(minutes=64), MONDAY + timedelta(minutes=100))]
    # 3 minutes before the wait, 1 after it, 2 since the resume that took the dead turn over
    assert running_seconds(events, MONDAY + timedelta(minutes=102), dead) == 6 * 60
    assert running_seconds(events[:3], MONDAY + timedelta(minutes=30)) == 3 * 60  # waiting still
