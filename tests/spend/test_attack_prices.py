"""Attack: a price table with a typo, through the real `openai` client against a loopback endpoint.

TOML reads `nan` and `inf` as numbers; a price that is not a finite number must stop the request with a
reason about the price, never a request sent uncounted, and never an error that blames the ledger (whose
hint would have the user move a healthy ledger aside and forget what the day spent).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.runners.base import RunnerError
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Ledger, Limits
from tests.fakes.openai_server import FakeOpenAI
from tests.runners.conftest import build_request
from tests.runners.test_spend import model_runner

NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("price", [(math.nan, 10.0), (2.0, math.nan), (math.inf, 10.0), (2.0, math.inf)])
def test_a_price_that_is_not_a_finite_number_sends_nothing_and_says_so(
    price: tuple[float, float], tmp_path: Path
) -> None:
    ledger = Ledger.open(tmp_path)
    gate = LedgerGate(ledger, agent="a", turn="t1", runner="model", limits=Limits(0.5, 5.0), clock=lambda: NOON)
    with FakeOpenAI(completion_tokens=1000) as server:
        with pytest.raises(RunnerError) as info:
            model_runner("openai", server, price=price).think(build_request(max_usd=0.5, spend=gate))
        assert server.requests == []
    assert "ledger" not in info.value.message, info.value.message
    assert ledger.day_total("2026-12-01") == 0.0


def test_a_free_model_is_never_charged_and_never_flagged(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    gate = LedgerGate(ledger, agent="a", turn="t1", runner="model", limits=Limits(0.0, 0.0), clock=lambda: NOON)
    with FakeOpenAI(completion_tokens=1000) as server:
        result = model_runner("openai", server, price=(0.0, 0.0)).think(build_request(max_usd=0.0, spend=gate))
    assert len(server.requests) == 1
    assert result.usage.usd == 0.0 and result.usage.flags == ()
    assert ledger.day_total("2026-12-01") == 0.0
