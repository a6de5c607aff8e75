"""The caps hold against a paid OpenAI-shaped endpoint on loopback: two ticks racing, and `kill -9`.

Each tick is a real `python -m hz tick` process using the model runner (the real `openai` client through
pydantic-ai) against tests/fakes/openai_server.py. The endpoint charges 10 USD per million output tokens
and answers with up to 34,000 of them: a turn costs 0.34 USD when nothing stops it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from tests.fakes.openai_server import FakeOpenAI
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
OUTPUT_PRICE = 10.0  # USD per million output tokens; input is free, so a turn's cost is its answer
TICK = [sys.executable, "-m", "hz", "tick", "--now", "2026-10-26T09:00Z"]
DRAFT = {  # the note of tests/turn/agents.py's contract, both its facets
    "kind": "draft",
    "report": "what shipped this week",
    "drafts": [{"output": "note", "facet": f, "text": f"the week's {f}"} for f in ("summary", "risks")],
}


def configure(server: FakeOpenAI, heinzel: str) -> None:
    folder = Path(os.environ["HZ_CONFIG_HOME"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        f"[heinzel]\n{heinzel}\n"
        '[runners]\ndefault = "model"\n'
        f'[runners.model]\nbase_url = "{server.base_url}"\nmodel = "paid"\nmax_output_tokens = 34000\n'
        f'[runners.prices."paid"]\ninput = 0\noutput = {OUTPUT_PRICE}\n'
    )


def billed(server: FakeOpenAI) -> float:
    """What the endpoint would charge for every request it answered (a killed client's too)."""
    bill = server.completion_tokens or 0
    tokens = sum(min(bill, asked or bill) for asked in server.asked)
    return tokens * OUTPUT_PRICE / 1_000_000


def recorded(agent: str) -> float:
    events = read_spine(home() / "heinzel" / agent / SPINE).events
    return sum(float(e.data.get("usd", 0.0)) for e in events if e.kind in {"turn.finished", "usage"})


def ledger_total() -> float:
    """Today's total: the ledger books on the wall clock's day, whatever `--now` the ticks were given."""
    from hz.spend.day import ledger_day
    from hz.spend.ledger import Ledger  # here, so that the race test runs against hz from before the ledger

    with Store.from_environ(os.environ) as store:
        return Ledger.open(store.root).day_total(ledger_day())


def test_two_ticks_at_once_never_spend_past_the_day_cap(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd_per_day = 0.5")
        server.pairing = True  # both requests wait for each other: both ticks have read the day's spend
        agents = [adopt(contract_text(n, target=f"file:{n}-{{{{slot:%G-W%V}}}}.md"), now=MONDAY) for n in ("a", "b")]
        ticks = [subprocess.Popen(TICK, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]  # fmt: skip
        outputs = [tick.communicate(timeout=120) for tick in ticks]
        assert [t.returncode for t in ticks] == [0, 0], outputs
        spent = sum(recorded(agent) for agent in agents)
        assert spent > 0, outputs  # something ran: the test races real spending
        assert spent <= 0.5 + 1e-9, outputs
        assert billed(server) <= 0.5 + 1e-9, server.asked
        assert ledger_total() <= 0.5 + 1e-9


def real_day_passes() -> None:
    """What a real midnight does to the ledger: everything booked so far belongs to yesterday. (`--now`
    cannot do it: the ledger books on the wall clock's day.)"""
    import sqlite3

    with Store.from_environ(os.environ) as store:
        db = sqlite3.connect(store.root / "spend.sqlite")
        with db:
            db.execute("UPDATE reservations SET day = date(day, '-1 day')")
            db.execute("UPDATE seeds SET day = date(day, '-1 day')")
        db.close()


def _killed_mid_request(repo: Path, server: FakeOpenAI) -> None:
    server.release.clear()
    with subprocess.Popen(TICK, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as tick:
        assert server.arrived.acquire(timeout=60), "the tick never sent its request"
        os.kill(tick.pid, signal.SIGKILL)
        tick.communicate(timeout=60)
    server.release.set()


def test_a_tick_killed_while_its_request_is_in_flight_leaves_that_request_counted(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 5.0")
        agent = adopt(contract_text(), now=MONDAY)
        _killed_mid_request(repo, server)
        resumed = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
        assert "resumed -> drafted" in resumed.stdout, resumed.stdout + resumed.stderr
        assert len(server.asked) == 2
        # the turn's cost is the ledger's sum for it: the killed request (same turn, resumed) counts there too
        assert abs(recorded(agent) - 0.68) < 1e-6
        assert ledger_total() >= billed(server) - 1e-9 > 0.6  # the ledger counts the request the kill lost


def test_a_tick_killed_right_after_the_reply_leaves_that_request_counted(repo: Path) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 5.0")
        adopt(contract_text(), now=MONDAY)
        env = {**os.environ, "HZ_CRASH_AT": "think.after"}
        died = subprocess.run(TICK, cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert died.returncode == -signal.SIGKILL, died.stderr
        resumed = subprocess.run(TICK, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
        assert "resumed -> drafted" in resumed.stdout, resumed.stdout + resumed.stderr
        assert len(server.asked) == 2
        assert abs(ledger_total() - billed(server)) < 1e-6 and billed(server) > 0.6


def test_an_endpoint_that_over_reports_is_flagged_and_its_runner_waits_for_tomorrow(repo: Path) -> None:
    from hz.commands.tick import render_report
    from hz.tick.daemon import tick

    with FakeOpenAI(outcome=DRAFT, completion_tokens=1_000, over_report=5_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 5.0")
        for name in ("a-note", "b-note"):
            adopt(contract_text(name, target=f"file:{name}-{{{{slot:%G-W%V}}}}.md"), now=MONDAY)
        lines = render_report(tick(root=repo, now=MONDAY))
        assert len(server.asked) == 1, lines  # no further request to that runner today
        assert lines[0].startswith("a-note: started -> drafted 0.39 USD; flagged: the endpoint reported more")
        assert lines[1].startswith("b-note: skipped -> cap: over-reported: "), lines  # no turn was started
        assert abs(ledger_total() - 0.39) < 1e-9  # recorded as reported, past the output limit asked for


def test_an_endpoint_that_sends_no_usage_is_charged_its_reservation_and_flagged(repo: Path) -> None:
    from hz.commands.tick import render_report
    from hz.tick.daemon import tick

    with FakeOpenAI(outcome=DRAFT, completion_tokens=1_000, reports_usage=False) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 5.0")
        agent = adopt(contract_text(), now=MONDAY)
        (line,) = render_report(tick(root=repo, now=MONDAY))
        assert line.endswith("; flagged: the endpoint sent no usage; the request's reservation is counted as spent")
        assert recorded(agent) > 0.3  # never recorded as free
        assert abs(ledger_total() - recorded(agent)) < 1e-9
