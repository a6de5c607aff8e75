"""Attack: `kill -9` (hz's own crash points) at every step of a paid turn, then a resuming tick.

Whatever point the kill hit, the ledger counts at least what the endpoint billed (never a paid request
uncounted), the resumed turn finishes, and the day's total stays under the day cap.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, MONDAY, TICK, billed, configure, ledger_total
from tests.turn.agents import adopt, contract_text

POINTS = [
    "turn.started",
    "think.before",
    "think.after",
    "draft.placed",
    "effect.started",
    "effect.performed",
    "turn.finished",
]


@pytest.mark.parametrize("point", POINTS)
def test_a_kill_at_any_point_leaves_every_paid_request_counted(repo: Path, point: str) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 0.8")
        adopt(contract_text(), now=MONDAY)
        env = {**os.environ, "HZ_CRASH_AT": point}
        died = subprocess.run(TICK, cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False)
        resumed = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
        said = died.stdout + died.stderr + resumed.stdout + resumed.stderr
        assert resumed.returncode == 0, said
        assert "Traceback" not in said, said
        assert ledger_total() >= billed(server) - 1e-9, (said, server.asked)
        assert ledger_total() <= 0.8 + 1e-9, (said, server.asked)
        if died.returncode == -signal.SIGKILL and point != "turn.finished":  # reached: the turn comes back
            assert "drafted" in resumed.stdout, said
