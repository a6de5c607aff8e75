"""The spend ledger on a real SQLite file: reservations, settlements, caps, crashes and racing processes."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import os
import signal
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from hz.spend.gate import LedgerGate
from hz.spend.ledger import Ledger, Limits, Refused, Reserved

DAY = "2026-12-01"
LIMITS = Limits(turn_usd=1.0, day_usd=0.5)


def _reserve(ledger: Ledger, *, agent: str = "a", turn: str = "t1", runner: str = "model", least: float = 0.1,
             most: float = 0.34, limits: Limits = LIMITS) -> Reserved | Refused:  # fmt: skip
    return ledger.reserve(agent=agent, turn=turn, runner=runner, day=DAY, limits=limits, least=least, most=most)


def test_grants_up_to_the_room_left_and_refuses_below_least(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    first = _reserve(ledger)
    assert isinstance(first, Reserved) and first.usd == 0.34
    second = _reserve(ledger, agent="b", turn="t2")
    assert isinstance(second, Reserved) and abs(second.usd - 0.16) < 1e-9  # the rest of the day, not 0.34
    third = _reserve(ledger, agent="c", turn="t3", least=0.01)
    assert third == Refused("day", 0.5, 0.5, 0.01)


def test_a_settlement_frees_what_was_not_spent(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    first = _reserve(ledger)
    assert isinstance(first, Reserved)
    ledger.settle(first.id, 0.04)
    assert abs(ledger.day_total(DAY) - 0.04) < 1e-9
    assert isinstance(_reserve(ledger, agent="b", turn="t2"), Reserved)


def test_the_turn_and_contract_caps_bind_their_own_scope(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    limits = Limits(turn_usd=0.3, day_usd=5.0, contract_day_usd=0.5)
    assert isinstance(_reserve(ledger, least=0.2, most=0.3, limits=limits), Reserved)
    assert _reserve(ledger, least=0.05, limits=limits) == Refused("turn", 0.3, 0.3, 0.05)
    assert isinstance(_reserve(ledger, turn="t2", least=0.2, most=0.3, limits=limits), Reserved)
    refused = _reserve(ledger, turn="t3", least=0.05, limits=limits)
    assert isinstance(refused, Refused) and refused.cap == "contract"
    assert isinstance(_reserve(ledger, agent="b", turn="t4", least=0.2, most=0.3, limits=limits), Reserved)


def test_an_over_reporting_runner_makes_no_further_request_that_day(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    limits = Limits(turn_usd=5.0, day_usd=5.0)
    first = _reserve(ledger, limits=limits)
    assert isinstance(first, Reserved)
    ledger.settle(first.id, 0.9, "over-reported")  # kept as reported, past the grant
    assert abs(ledger.day_total(DAY) - 0.9) < 1e-9
    assert _reserve(ledger, turn="t2", limits=limits) == Refused("over-reported", 0.0, 0.0, 0.1)
    assert isinstance(_reserve(ledger, turn="t2", runner="claude-code", limits=limits), Reserved)


def test_the_file_is_private_and_a_new_one_starts_from_the_index(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path / "home", lambda: (DAY, {"a": 0.3, "b": 0.0}))
    for path in (tmp_path / "home").iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((tmp_path / "home").stat().st_mode) == 0o700
    assert abs(ledger.day_total(DAY) - 0.3) < 1e-9
    ledger.close()
    again = Ledger.open(tmp_path / "home", lambda: (DAY, {"a": 9.0}))  # seeded once, when the file was new
    assert abs(again.day_total(DAY) - 0.3) < 1e-9


def test_the_gate_remembers_why_it_refused(tmp_path: Path) -> None:
    gate = LedgerGate(Ledger.open(tmp_path), agent="a", turn="t", runner="model", limits=LIMITS, clock=_noon)
    grant = gate.reserve(0.1, 0.4)
    assert grant is not None and grant.usd == 0.4
    gate.settle(grant, 0.45, "over-reported")
    assert gate.reserve(0.01, 0.1) is None
    assert gate.refused is not None and gate.refused.cap == "over-reported"
    assert gate.flags == ["over-reported"]


_KILLED = """
import os, sys
from pathlib import Path
from hz.spend.ledger import Ledger, Limits
ledger = Ledger.open(Path(sys.argv[1]))
found = ledger.reserve(agent="a", turn="t", runner="m", day=sys.argv[2], limits=Limits(1.0, 0.5), least=0.1, most=0.34)
print(found.id, flush=True)
sys.stdin.readline()  # the request is in flight: killed here
"""


def test_a_process_killed_after_reserving_leaves_its_reservation_counted(tmp_path: Path) -> None:
    with subprocess.Popen([sys.executable, "-c", _KILLED, str(tmp_path), DAY], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as child:  # fmt: skip
        assert child.stdout is not None and child.stdout.readline().strip()
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    ledger = Ledger.open(tmp_path)
    assert abs(ledger.day_total(DAY) - 0.34) < 1e-9
    assert _reserve(ledger, turn="t2", least=0.2) == Refused("day", 0.5, 0.34, 0.2)


def _race(folder: str, agent: str, start: multiprocessing.synchronize.Event, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    ledger = Ledger.open(Path(folder))
    start.wait()
    granted = 0.0
    for n in range(20):
        found = _reserve(ledger, agent=agent, turn=f"{agent}{n}", least=0.05, most=0.05)
        if isinstance(found, Reserved):
            granted += found.usd
    out.put(granted)


def test_two_processes_never_both_pass_the_same_remainder(tmp_path: Path) -> None:
    Ledger.open(tmp_path).close()
    context = multiprocessing.get_context("spawn")
    start, out = context.Event(), context.Queue()
    racers = [context.Process(target=_race, args=(str(tmp_path), name, start, out)) for name in ("a", "b")]
    for racer in racers:
        racer.start()
    start.set()
    granted = [out.get(timeout=60) for _ in racers]
    for racer in racers:
        racer.join(timeout=60)
    assert abs(sum(granted) - 0.5) < 1e-9  # ten grants of 0.05 in all, never eleven
    assert abs(Ledger.open(tmp_path).day_total(DAY) - 0.5) < 1e-9


def _noon() -> datetime:
    return datetime(2026, 12, 1, 12, tzinfo=UTC)


def test_a_home_from_before_the_ledger_counts_what_it_spent_today(tmp_path: Path) -> None:
    from hz.session.store import Store
    from hz.spend.day import ledger_day
    from hz.spend.gate import ledger_of
    from hz.tick.daemon import tick
    from tests.spend.test_reasons import priced
    from tests.turn.agents import adopt, contract_text

    today = ledger_day()  # the seed reads the index's record of the wall clock's day, so the tick runs today
    now = datetime.now(UTC)
    agent = adopt(contract_text(), now=now)
    tick(root=None, now=now, runner=priced([]))
    with Store.from_environ(os.environ) as store:
        spent = store.index.cost_on(today)
        assert spent > 0
        for path in store.root.glob("spend.sqlite*"):  # as a home from before the ledger has none
            path.unlink()
        ledger = ledger_of(store)
        assert abs(ledger.day_total(today) - spent) < 1e-12
        assert abs(ledger.spent(agent=agent, turn="-", day=today).agent_usd - spent) < 1e-12
