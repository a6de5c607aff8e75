"""Attack: `hz heinzel new NAME --say "…"` pays a model to write the contract, outside any turn.

A real `hz` process with the model runner (the real `openai` client) against a paid loopback endpoint.
That request is the user's spending like any other: the day cap must bound it and the ledger count it.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from hz.session.store import Store
from hz.spend.gate import utc_day
from hz.spend.ledger import Ledger
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, billed, configure

NEW = [sys.executable, "-m", "hz", "heinzel", "new", "notes", "--say", "a weekly note of what shipped, Fridays"]


def test_writing_a_contract_from_a_sentence_is_counted_and_capped(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 0.5")
        said = []
        for _ in range(4):  # each up to 0.20 USD: together past the day cap
            done = subprocess.run(NEW, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
            said.append(done.stdout + done.stderr)
        assert "Traceback" not in "".join(said), said
        assert "the day cap of 0.5000 USD has 0.0000 USD left" in said[-1], said  # refused, and told which cap
        assert len(server.asked) > 0  # it did pay for something
        with Store.from_environ() as store:
            counted = Ledger.open(store.root).day_total(utc_day(datetime.now(UTC)))
        assert counted >= billed(server) - 1e-9, (counted, server.asked)
        assert billed(server) <= 0.5 + 1e-9, server.asked
