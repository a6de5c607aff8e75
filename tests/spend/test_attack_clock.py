"""Attack: the clock crosses the UTC day boundary mid-turn, and steps back across it.

A turn's requests land on whichever day the clock says at each request; the turn's own cap must count
them all, whatever days they landed on, and each day's cap counts only its own. Real SQLite, the model
runner's gate with a clock that moves between requests.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.runners.base import Grant
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Ledger, Limits

MIDNIGHT = datetime(2026, 12, 2, 0, 0, tzinfo=UTC)


def test_a_turn_straddling_midnight_back_and_forth_stays_under_its_cap(tmp_path: Path) -> None:
    # the clock jumps between 23:59:59 and 00:00:01, as an NTP step back and forth would
    moments: Iterator[datetime] = iter(MIDNIGHT + timedelta(seconds=(1 if i % 2 else -1)) for i in range(100))
    gate = LedgerGate(
        Ledger.open(tmp_path), agent="a", turn="t", runner="model", limits=Limits(0.5, 0.4), clock=lambda: next(moments)
    )
    grants: list[Grant] = []
    while (grant := gate.reserve(0.05, 0.1)) is not None:
        grants.append(grant)
        gate.settle(grant, grant.usd)
    assert sum(g.usd for g in grants) <= 0.5 + 1e-9  # the turn's cap, across both days
    for day in ("2026-12-01", "2026-12-02"):
        assert gate.ledger.day_total(day) <= 0.4 + 1e-9
    assert gate.refused is not None and gate.refused.cap == "turn"
