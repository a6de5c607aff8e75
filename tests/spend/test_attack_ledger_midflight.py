"""Attack: the ledger file is overwritten with garbage while a tick's request is in flight.

The reply is paid; its settlement then meets a damaged ledger (or lands in sqlite's cache and log). A real
`hz tick` must not crash with a traceback, and the next tick must refuse to spend, naming the ledger.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_attack_ledger_file import _ledger
from tests.spend.test_caps_hold import DRAFT, MONDAY, TICK, configure
from tests.turn.agents import adopt, contract_text


def test_a_ledger_damaged_mid_flight_is_named_and_stops_spending(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=1_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 5.0")
        adopt(contract_text(), now=MONDAY)
        server.release.clear()
        with subprocess.Popen(TICK, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as tick:
            assert server.arrived.acquire(timeout=60), "the tick never sent its request"
            for suffix in ("", "-wal"):
                Path(f"{_ledger()}{suffix}").write_bytes(b"garbage, not a database\n" * 4096)
            server.release.set()
            out, err = tick.communicate(timeout=120)
        said = out + err
        assert tick.returncode != 3 and "Traceback" not in said, said  # its settlement may still land
        asked = len(server.asked)
        adopt(contract_text("b-note", target="file:b-{{slot:%G-W%V}}.md"), now=MONDAY)
        again = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
        assert len(server.asked) == asked, again.stdout + again.stderr
        said = again.stdout + again.stderr
        assert "Traceback" not in said and again.returncode != 3, said
        assert "the spend ledger" in said, said
