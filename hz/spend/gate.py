"""The spend gate a turn hands its runner: the ledger, bound to one (agent, turn, runner) and its caps.

A runner calls `reserve` before each model request and `settle` after it (hz.runners.base.SpendGate).
Requests are booked on the wall clock's day (`ledger_day`), never on a tick's `--now`.
When a reservation is refused, `refused` keeps why (which cap, its limit, what is gone), so the turn can
say it in the tick's line; `flags` keeps what the settlements were flagged with.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hz.runners.base import Grant, SpendFlag
from hz.spend.day import ledger_day, utc_day, wall_clock
from hz.spend.ledger import LEDGER, Ledger, Limits, Refused

if TYPE_CHECKING:
    from hz.session.store import Store

_OPEN: dict[tuple[int, Path], tuple[int, Ledger]] = {}  # one connection per process and file: (inode, ledger)
_CLOSED: dict[Path, str] = {}  # ledger -> the day before which this process settled what was left in doubt


def open_ledger(folder: Path, seed: Callable[[], tuple[str, Mapping[str, float]]] | None = None) -> Ledger:
    """This process's ledger in `folder`, opened once (a forked child opens its own), and again when the
    file was removed or replaced meanwhile (a daemon must not go on counting in a file nobody else reads)."""
    key = (os.getpid(), folder.resolve())
    known = _OPEN.get(key)
    try:
        inode = os.stat(folder / LEDGER).st_ino
    except FileNotFoundError:
        inode = None
    if known is None or known[0] != inode:
        if known is not None:
            known[1].close()
        ledger = Ledger.open(folder, seed)
        _OPEN[key] = (os.stat(ledger.path).st_ino, ledger)
    return _OPEN[key][1]


class LedgerGate:
    """A `SpendGate` over the ledger for one turn's requests to one runner."""

    def __init__(
        self,
        ledger: Ledger,
        *,
        agent: str,
        turn: str,
        runner: str,
        limits: Limits,
        clock: Callable[[], datetime] = wall_clock,
    ) -> None:
        self.ledger = ledger
        self.agent = agent
        self.turn = turn
        self.runner = runner
        self.limits = limits
        self._clock = clock
        self.refused: Refused | None = None
        self.flags: list[SpendFlag] = []

    def reserve(self, least_usd: float, most_usd: float) -> Grant | None:
        if most_usd <= 0:
            return Grant("free", 0.0)  # a request that cannot cost anything needs no room
        found = self.ledger.reserve(
            agent=self.agent,
            turn=self.turn,
            runner=self.runner,
            day=utc_day(self._clock()),
            limits=self.limits,
            least=max(0.0, least_usd),
            most=most_usd,
        )
        if isinstance(found, Refused):
            self.refused = found
            return None
        self.refused = None
        return Grant(found.id, found.usd)

    def settle(self, grant: Grant, usd: float, flag: SpendFlag | None = None) -> None:
        if flag is not None:
            self.flags.append(flag)
        if grant.id == "free":
            return
        self.ledger.settle(grant.id, usd, flag)


def ledger_of(store: Store) -> Ledger:
    """The ledger beside the index of `store`; a new one starts from the index's
    record of today (the wall clock's), so a home from before the ledger does not forget this morning."""
    day = ledger_day()
    ledger = open_ledger(store.root, lambda: (day, store.index.spent_on(day)))
    if _CLOSED.get(ledger.path) != day:  # once a day per process: earlier days' doubts become final
        ledger.close_days(day)
        _CLOSED[ledger.path] = day
    return ledger
