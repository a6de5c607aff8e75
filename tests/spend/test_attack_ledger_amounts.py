"""Attack: amounts a settlement cannot mean (nan, infinite, negative) handed straight to the ledger.

Whoever calls it, the ledger keeps such a request at its reservation: never counted as free, never as an
infinite amount that refuses everyone for the rest of the day.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hz.spend.ledger import Ledger, Limits, Reserved

DAY = "2026-12-01"


@pytest.mark.parametrize("amount", [math.nan, math.inf, -math.inf, -0.5])
def test_a_meaningless_settlement_keeps_the_reservation(tmp_path: Path, amount: float) -> None:
    ledger = Ledger.open(tmp_path)
    grant = ledger.reserve(agent="a", turn="t", runner="model", day=DAY, limits=Limits(1.0, 5.0), least=0.1, most=0.3)
    assert isinstance(grant, Reserved)
    ledger.settle(grant.id, amount)
    assert ledger.day_total(DAY) == pytest.approx(0.3)
