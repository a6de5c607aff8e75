"""Attack: an endpoint that reports usage in odd shapes, through the real `openai` and `anthropic` clients.

Whatever it reports, the ledger must never record less than the request may have cost without a flag,
and a report that prices above the request's own worst case must be flagged and stop that runner today.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.runners.base import RunnerFailed
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Ledger, Limits
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.model_endpoint import ModelEndpoint
from tests.fakes.openai_server import FakeOpenAI
from tests.runners.conftest import build_request
from tests.runners.test_spend import model_runner

NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DAY = "2026-12-01"
PRICE = (2.0, 10.0)  # USD per million input and output tokens


def _odd(base: type[ModelEndpoint], usage: Any) -> ModelEndpoint:
    class Odd(base):  # type: ignore[valid-type,misc]
        def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
            code, payload = super().answer(path, body)
            payload["usage"] = usage
            return code, payload

    return Odd()


def _think(provider: str, usage: Any, tmp_path: Path, turn: str = "t1") -> tuple[Any, Ledger, LedgerGate]:
    ledger = Ledger.open(tmp_path)
    gate = LedgerGate(ledger, agent="a", turn=turn, runner="model", limits=Limits(0.5, 5.0), clock=lambda: NOON)
    base = FakeAnthropic if provider == "anthropic" else FakeOpenAI
    with _odd(base, usage) as server:
        result = model_runner(provider, server, price=PRICE).think(build_request(max_usd=0.5, spend=gate))
    return result, ledger, gate


def test_cached_tokens_beyond_the_prompt_are_flagged_and_stop_the_runner(tmp_path: Path) -> None:
    # 300 prompt tokens of which a billion were "cached": priced, that is 2,000 USD against a 0.5 USD cap
    usage = {
        "prompt_tokens": 300,
        "completion_tokens": 100,
        "total_tokens": 400,
        "prompt_tokens_details": {"cached_tokens": 10**9},
    }
    result, ledger, _ = _think("openai", usage, tmp_path)
    assert result.usage.flags == ("over-reported",), result.usage  # recorded as reported (2,000 USD), flagged
    assert ledger.runner_flagged("model", DAY)  # and that runner makes no further request today


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_report_of_no_input_for_a_request_that_sent_some_is_not_taken_as_free_input(
    provider: str, tmp_path: Path
) -> None:
    fields = ("prompt_tokens", "completion_tokens") if provider == "openai" else ("input_tokens", "output_tokens")
    usage = {fields[0]: 0, fields[1]: 100}
    if provider == "openai":
        usage["total_tokens"] = 100
    result, ledger, _ = _think(provider, usage, tmp_path)
    honest_input = 1_000  # the request sends well over a thousand bytes: at least that many tokens is not 0
    assert result.usage.usd >= (honest_input * PRICE[0] + 100 * PRICE[1]) / 1e6 or result.usage.flags, result.usage
    assert math.isclose(ledger.day_total(DAY), result.usage.usd)


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": None, "completion_tokens": 3000, "total_tokens": None},
        {"prompt_tokens": -1_000_000, "completion_tokens": 3000, "total_tokens": 0},
        {"prompt_tokens": math.nan, "completion_tokens": math.nan, "total_tokens": 0},
        {"prompt_tokens": 100, "completion_tokens": -5, "total_tokens": 0},
        {"prompt_tokens": 1e300, "completion_tokens": 1e300, "total_tokens": 0},
        {"prompt_tokens": 300, "completion_tokens": 100, "prompt_tokens_details": {"cached_tokens": -(10**6)}},
        {},
        None,
    ],
    ids=["null-input", "negative-input", "nan", "negative-output", "huge-float", "negative-cached", "empty", "null"],
)
def test_an_unreadable_usage_counts_the_whole_reservation(usage: Any, tmp_path: Path) -> None:
    try:
        result, ledger, _ = _think("openai", usage, tmp_path)
    except RunnerFailed as exc:  # the turn fails; what matters is that the request stays counted
        ledger = Ledger.open(tmp_path)
        assert ledger.day_total(DAY) > 0.0, exc
        return
    assert result.usage.flags == ("no-usage",), result.usage
    assert ledger.day_total(DAY) == pytest.approx(result.usage.usd) and result.usage.usd > 0
