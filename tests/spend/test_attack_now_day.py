"""Attack: ticks pinned to other days (`--now`) within one real day try to spend the day's cap again.

`--now` moves the schedule only; the ledger books on the wall clock's day. Two real `hz tick` processes,
the first pinned to Monday, the second to Tuesday, both run today: against `max_usd_per_day = 0.5` and a
paid loopback endpoint charging 0.34 USD a turn, only the first turn may spend.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, MONDAY, billed, configure, ledger_total
from tests.turn.agents import adopt, contract_text


def _tick(repo: Path, now: str) -> str:
    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", now], cwd=repo, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_pinned_now_on_another_day_never_finds_a_fresh_day_cap(repo: Path) -> None:
    tuesday = MONDAY + timedelta(days=1)
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd_per_day = 0.5")
        adopt(contract_text("a-note", target="file:a-note-{{slot:%G-W%V}}.md"), now=MONDAY)
        first = _tick(repo, MONDAY.isoformat())
        adopt(contract_text("b-note", target="file:b-note-{{slot:%G-W%V}}.md"), now=tuesday)
        second = _tick(repo, tuesday.isoformat())
        assert billed(server) <= 0.5 + 1e-9, (first, second)
        assert len(server.asked) == 1, (first, second)
        assert "b-note: skipped -> cap" in second, second
        assert abs(ledger_total() - 0.34) < 1e-9
