"""Attack: a turn killed (`kill -9`) with its request in flight, resumed against a tight turn cap.

The killed request's reservation stays counted (it may have been paid). The resumed turn must then either
fit what is left of the turn's cap or say so, and never be double-counted into a skip that repeats forever.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import (
    DRAFT,
    MONDAY,
    TICK,
    _killed_mid_request,
    billed,
    configure,
    ledger_total,
    real_day_passes,
)
from tests.turn.agents import adopt, contract_text


def test_a_turn_resumed_after_a_kill_in_flight_fits_what_its_cap_has_left(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd = 0.5\nmax_usd_per_day = 5.0")  # one request's worst case is 0.34
        adopt(contract_text(), now=MONDAY)
        _killed_mid_request(repo, server)
        lines = []
        for _ in range(2):
            tick = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
            assert tick.returncode == 0, tick.stdout + tick.stderr
            lines.append(tick.stdout.strip())
        assert ledger_total() <= 0.5 + 1e-9, lines  # the killed request and the resumed one, under the turn cap
        assert billed(server) <= 0.5 + 1e-9, server.asked
        assert any("drafted" in line or "failed" in line for line in lines), lines  # not skipped forever


def test_a_resumed_turn_the_day_cap_refuses_waits_for_the_next_day_and_keeps_its_slot(repo: Path) -> None:
    """The day's money is gone with the killed request: the turn waits for the next UTC day (its slot and
    what it paid for are kept), then drafts once a real day has passed; it is not skipped for good."""
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 0.5")
        adopt(contract_text(), now=MONDAY)
        _killed_mid_request(repo, server)
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 0.34")  # the killed request took the whole day
        lines = []
        for tick in (TICK, TICK, [*TICK[:-1], "2026-10-27T09:00Z"]):
            if len(lines) == 2:
                real_day_passes()  # the ledger's day is the wall clock's: `--now` alone frees no money
            done = subprocess.run(tick, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
            assert done.returncode == 0, done.stdout + done.stderr
            lines.append(done.stdout.strip())
        assert lines[0].startswith("weekly-note: resumed -> waiting (cap): day 0.34 USD, 0.34 spent"), lines
        assert lines[1] == "nothing due", lines  # waiting costs nothing and says nothing
        assert "resumed -> drafted" in lines[2], lines
        assert len(server.asked) == 2, lines
