"""Attack: three `hz tick` processes and an `hz heinzel wake` racing for one day cap, on the real clock.

Six agents, each turn's one request 0.34 USD at worst (10 USD per million output tokens, 34,000 of them),
against `max_usd_per_day = 0.5`: whatever the interleaving, the ledger and the endpoint's bill stay under it.
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
from tests.spend.test_caps_hold import DRAFT, MONDAY, billed, configure
from tests.turn.agents import adopt, contract_text

HZ = [sys.executable, "-m", "hz"]


def test_three_ticks_and_a_wake_never_spend_past_the_day_cap(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd_per_day = 0.5")
        server.pairing = True  # requests wait for a partner: two are in flight together
        names = [f"n{i}" for i in range(6)]
        for name in names:
            adopt(contract_text(name, target=f"file:{name}-{{{{slot:%G-W%V}}}}.md"), now=MONDAY)
        runs = [[*HZ, "tick"] for _ in range(3)] + [[*HZ, "heinzel", "wake", "n5"]]
        procs = [
            subprocess.Popen(run, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for run in runs
        ]
        outputs = [proc.communicate(timeout=180) for proc in procs]
        assert all(proc.returncode in (0, 1) for proc in procs), outputs
        assert not any("Traceback" in out + err for out, err in outputs), outputs
        with Store.from_environ() as store:
            total = Ledger.open(store.root).day_total(utc_day(datetime.now(UTC)))
        assert 0 < total <= 0.5 + 1e-9, (total, outputs)
        assert billed(server) <= 0.5 + 1e-9, (server.asked, outputs)
