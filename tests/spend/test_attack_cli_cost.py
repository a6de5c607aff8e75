"""Attack: a claude CLI that reports its cost in odd shapes (the real runner, a scripted CLI on PATH).

Whatever it prints, the ledger records a finite amount: what can be read as a cost within reason, or the
whole grant flagged. An infinite cost recorded would refuse every agent of the user for the rest of the day
and carry `Infinity` into JSON records.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hz.runners.base import RunnerError, ThinkRequest
from hz.runners.claude_code import ClaudeCodeRunner
from hz.runners.codex import CodexRunner
from hz.runners.pricing import PRICES
from tests.runners import conftest as runner_fixtures
from tests.runners.test_claude_code import OUTCOME, prints, result
from tests.runners.test_cli_spend import gate
from tests.runners.test_codex import OUTCOME as CODEX_OUTCOME
from tests.runners.test_codex import PRICE as CODEX_PRICE
from tests.runners.test_codex import events

# the runner tests' fixtures: a scripted CLI on a private PATH, and a think request
fake_cli = runner_fixtures.fake_cli
make_request = runner_fixtures.make_request

Requests = Callable[..., ThinkRequest]


@pytest.mark.parametrize(
    "cost",
    [
        *(math.inf, -math.inf, math.nan, -1.0, "0.01", None, [0.01], {"usd": 0.01}, True),
        10**400,
    ],
    ids=["inf", "-inf", "nan", "negative", "string", "null", "list", "object", "bool", "huge-int"],
)
def test_an_odd_cost_is_recorded_finite(fake_cli: Any, make_request: Requests, tmp_path: Path, cost: Any) -> None:
    fake_cli.install("claude", prints(result(structured_output=OUTCOME, total_cost_usd=cost)))
    runner = ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], fake_cli.environ)
    spend = gate(tmp_path, "t-1", "claude-code")
    try:
        done = runner.think(make_request(max_usd=0.1, spend=spend))
        usd, flags = done.usage.usd, done.usage.flags
    except RunnerError as exc:
        usd, flags = exc.usage.usd, exc.usage.flags
    day = spend.ledger.day_total("2026-12-01")
    assert math.isfinite(usd) and math.isfinite(day), (usd, day, flags)
    assert day == pytest.approx(usd) and usd > 0, (usd, day, flags)


def test_a_cli_that_prints_no_result_counts_its_grant(fake_cli: Any, make_request: Requests, tmp_path: Path) -> None:
    fake_cli.install("claude", "print('thinking...')")
    runner = ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], fake_cli.environ)
    spend = gate(tmp_path, "t-1", "claude-code")
    with pytest.raises(RunnerError) as info:
        runner.think(make_request(max_usd=0.1, spend=spend))
    assert info.value.usage.flags == ("no-usage",)
    assert spend.ledger.day_total("2026-12-01") == pytest.approx(0.1)


@pytest.mark.parametrize(
    "usage",
    [
        {"input_tokens": -(10**9), "cached_input_tokens": 0, "output_tokens": 1000},
        {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": -(10**9)},
        {"input_tokens": 10**400, "cached_input_tokens": 0, "output_tokens": 1000},
    ],
    ids=["negative-input", "negative-output", "huge-input"],
)
def test_codex_odd_token_counts_never_settle_below_zero(
    fake_cli: Any, make_request: Requests, tmp_path: Path, usage: dict[str, Any]
) -> None:
    answer = {
        "type": "item.completed",
        "item": {"id": "i1", "type": "agent_message", "text": json.dumps(CODEX_OUTCOME)},
    }
    fake_cli.install("codex", events({"type": "turn.started"}, answer, {"type": "turn.completed", "usage": usage}))
    spend = gate(tmp_path, "t-1", "codex")
    done = CodexRunner("codex", None, CODEX_PRICE, fake_cli.environ).think(make_request(max_usd=0.05, spend=spend))
    assert done.usage.usd > 0, done.usage  # a cost is never negative; unreadable counts the grant
    assert spend.ledger.day_total("2026-12-01") == pytest.approx(done.usage.usd)
