"""Spend in doubt: a request in flight when hz was killed is shown as the ledger counts it, and named.

`hz heinzel list` and `show` (text and `--json`) report what the caps see, the unsettled part and why;
the doubt ends when the day does (or when the endpoint's usage settles the request). One kill, every
check after it: a paid turn is the slow part.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import signal
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

from hz.commands.heinzel_list import list_command
from hz.commands.heinzel_show import show_command
from hz.session.store import Store
from hz.spend.day import ledger_day
from hz.spend.gate import ledger_of
from hz.spend.standing import standing
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, MONDAY, TICK, configure, ledger_total, real_day_passes
from tests.turn.agents import adopt, contract_text

LATER = MONDAY + timedelta(hours=1)
RESERVED = 0.34  # 34,000 output tokens at 10 USD per million: the request's worst case


def _killed_in_flight(repo: Path) -> str:
    """Adopt an agent and kill -9 its tick while its one model request is at the endpoint."""
    with FakeOpenAI(outcome=DRAFT, completion_tokens=34_000) as server:
        configure(server, "max_usd = 1.0\nmax_usd_per_day = 0.8")
        agent = adopt(contract_text(), now=MONDAY)
        server.release.clear()  # the request waits at the endpoint: in flight
        tick = subprocess.Popen(TICK, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert server.arrived.acquire(timeout=60), "the request never reached the endpoint"
            os.kill(tick.pid, signal.SIGKILL)
            tick.communicate(timeout=30)
        finally:
            server.release.set()
    return agent


def _listed(repo: Path, *, json_output: bool, now: object = LATER) -> str:
    out = io.StringIO()
    list_command(out, state=None, artifact=None, contract=None, json_output=json_output, environ=os.environ,
                 now=now, root=repo)  # type: ignore[arg-type]  # fmt: skip
    return out.getvalue()


def _shown(agent: str, *, json_output: bool) -> str:
    out = io.StringIO()
    show_command(out, agent, json_output=json_output, environ=os.environ, now=LATER)
    return out.getvalue()


def test_a_request_in_flight_when_hz_was_killed_is_counted_named_and_settled_when_the_day_ends(repo: Path) -> None:
    agent = _killed_in_flight(repo)
    assert abs(ledger_total() - RESERVED) < 1e-9, "the ledger counts the reservation against the caps"
    [row] = json.loads(_listed(repo, json_output=True))
    assert (row["cost_today"], row["in_doubt_today"]) == (RESERVED, RESERVED)
    assert row["in_doubt"] == "a request was in flight when hz stopped"
    detail = json.loads(_shown(agent, json_output=True))
    assert (detail["cost_today"], detail["in_doubt_today"], detail["in_doubt"]) == (
        RESERVED,
        RESERVED,
        "a request was in flight when hz stopped",
    )
    text = _listed(repo, json_output=False)
    assert "  0.34  " in text.splitlines()[1], text
    assert text.endswith(
        "me:weekly-note: 0.340 in doubt: a request was in flight when hz stopped "
        "(in TODAY at its worst case until the endpoint's usage settles it or the day ends)\n"
    ), text
    assert "  0.34 USD today (0.340 in doubt: a request was in flight when hz stopped) · " in _shown(
        agent, json_output=False
    )

    # while a turn runs it holds the agent's spine: its request is in flight, not stranded
    with Store.from_environ(os.environ) as store:
        lock = store.agent_dir(agent) / "lock"
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        [row] = json.loads(_listed(repo, json_output=True))
    finally:
        os.close(fd)
    assert row["in_doubt"] == "a request is in flight"

    # the day ends: nobody learns the cost any more, it is final at its worst case
    real_day_passes()  # the ledger's day is the wall clock's: only a real midnight ends it
    with Store.from_environ(os.environ) as store:
        ledger = ledger_of(store)  # the first turn of the next day
        yesterday = (datetime.strptime(ledger_day(), "%Y-%m-%d") - timedelta(days=1)).strftime("%Y-%m-%d")
        assert abs(ledger.day_total(yesterday) - RESERVED) < 1e-9  # final at its worst case
        assert standing(store.root, yesterday)[agent].in_doubt_usd == 0.0
    detail = json.loads(_shown(agent, json_output=True))
    assert (detail["cost_today"], detail["in_doubt_today"], detail["in_doubt"]) == (0.0, 0.0, None)  # a new day
    assert ledger_total() == 0.0
