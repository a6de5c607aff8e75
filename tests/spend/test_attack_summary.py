"""Attack: the summary request made at the end of a turn, against the contract's per-day cap.

The contract's cap counts everything this agent spends in a UTC day; the summary request is this agent's
spending too. Real `hz tick` and `hz heinzel wake` processes against a paid OpenAI-shaped endpoint on
loopback (10 USD per million output tokens, 10,000 of them per answer: 0.10 USD a request).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from hz.session.store import Store
from hz.spend.gate import utc_day
from hz.spend.ledger import Ledger
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, MONDAY, configure
from tests.turn.agents import adopt, contract_text

CAP = 0.25
TICK = [sys.executable, "-m", "hz", "tick"]  # on the real clock, as `hz heinzel wake` runs


def _agent_spent(agent: str) -> float:
    with Store.from_environ(os.environ) as store:
        return Ledger.open(store.root).spent(agent=agent, turn="", day=utc_day(datetime.now(UTC))).agent_usd


def _run(repo: Path, *args: str) -> str:
    done = subprocess.run(args, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_summary_request_stays_under_the_contracts_day_cap(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=10_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 5.0\nsummary_after_turns = 1\nsummary_after_chars = 1")
        capped = contract_text().replace(
            "  outputs:\n", f"  cost:\n    max_tokens: 12000\n    max_usd_per_day: {CAP}\n  outputs:\n"
        )
        agent = adopt(capped, now=MONDAY)
        said = [_run(repo, *TICK)]
        said.append(_run(repo, sys.executable, "-m", "hz", "heinzel", "wake", "weekly-note"))
        said.append(_run(repo, *TICK))
        assert len(server.asked) >= 3, said  # two turns, then the summary request(s)
        assert _agent_spent(agent) <= CAP + 1e-9, (said, server.asked)
