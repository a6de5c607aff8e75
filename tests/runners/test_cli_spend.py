"""A CLI run is one reservation: the claude-code budget flag is its grant, and what the CLI reports is
settled (over its grant: recorded and flagged, and the runner's day ends; nothing: the whole grant)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from hz.runners.base import BudgetExceeded, ThinkRequest
from hz.runners.claude_code import ClaudeCodeRunner
from hz.runners.codex import CodexRunner
from hz.runners.pricing import PRICES
from hz.runners.spend import judge
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Ledger, Limits
from tests.runners.test_claude_code import OUTCOME, prints, result
from tests.runners.test_codex import OUTCOME as CODEX_OUTCOME
from tests.runners.test_codex import PRICE as CODEX_PRICE
from tests.runners.test_codex import events

if TYPE_CHECKING:
    from tests.runners.conftest import FakeCli

Requests = Callable[..., ThinkRequest]
NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def gate(folder: Path, turn: str, runner: str, *, day_usd: float = 10.0) -> LedgerGate:
    limits = Limits(turn_usd=1.0, day_usd=day_usd)
    return LedgerGate(
        Ledger.open(folder), agent="hz-01JAGENT", turn=turn, runner=runner, limits=limits, clock=lambda: NOON
    )


def test_claude_reporting_more_than_its_budget_is_flagged_and_ends_its_day(
    fake_cli: FakeCli, make_request: Requests, tmp_path: Path
) -> None:
    # issue 13: claude-code reported 4.8 USD against a budget flag of 1.0
    fake_cli.install("claude", prints(result(structured_output=OUTCOME, total_cost_usd=4.8)))
    runner = ClaudeCodeRunner("claude", "opus", PRICES["opus"], fake_cli.environ)
    first = runner.think(make_request(max_usd=1.0, max_tokens=100_000, spend=gate(tmp_path, "t-1", "claude-code")))
    (call,) = fake_cli.calls()
    assert call["argv"][call["argv"].index("--max-budget-usd") + 1] == "1.000000"  # the grant
    assert (first.usage.usd, first.usage.flags) == (4.8, ("over-reported",))
    with pytest.raises(BudgetExceeded) as info:
        runner.think(make_request(max_usd=1.0, spend=gate(tmp_path, "t-2", "claude-code")))
    assert len(fake_cli.calls()) == 1  # not started again today
    assert (
        info.value.message
        == "claude-code over-reported its usage earlier today; hz makes no further request to it today"
    )


def test_the_budget_flag_is_what_the_day_has_left(fake_cli: FakeCli, make_request: Requests, tmp_path: Path) -> None:
    fake_cli.install("claude", prints(result(structured_output=OUTCOME, total_cost_usd=0.15)))
    runner = ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], fake_cli.environ)
    for turn in ("t-1", "t-2"):
        done = runner.think(make_request(max_usd=1.0, spend=gate(tmp_path, turn, "claude-code", day_usd=0.3)))
        assert done.usage.flags == ()
    budgets = [c["argv"][c["argv"].index("--max-budget-usd") + 1] for c in fake_cli.calls()]
    assert budgets == ["0.200000", "0.150000"]  # 20,000 tokens at sonnet's dearest, then the day's rest


def test_claude_without_a_cost_counts_its_whole_grant(fake_cli: FakeCli, make_request: Requests) -> None:
    payload = result(structured_output=OUTCOME)
    del payload["total_cost_usd"]
    fake_cli.install("claude", prints(payload))
    outcome = ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], fake_cli.environ).think(make_request(max_usd=0.1))
    assert (outcome.usage.usd, outcome.usage.flags) == (pytest.approx(0.1), ("no-usage",))


def test_codex_without_usage_counts_its_whole_grant(fake_cli: FakeCli, make_request: Requests) -> None:
    answer = {
        "type": "item.completed",
        "item": {"id": "item_1", "type": "agent_message", "text": json.dumps(CODEX_OUTCOME)},
    }
    fake_cli.install("codex", events({"type": "turn.started"}, answer))
    outcome = CodexRunner("codex", None, CODEX_PRICE, fake_cli.environ).think(make_request(max_usd=0.05))
    assert (outcome.usage.usd, outcome.usage.flags) == (pytest.approx(0.05), ("no-usage",))


def test_a_cli_that_times_out_counts_its_whole_grant(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("claude", "time.sleep(30)")
    runner = ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], fake_cli.environ)
    with pytest.raises(Exception) as info:
        runner.think(make_request(max_usd=0.1, timeout_s=0.5))
    assert info.value.usage.flags == ("no-usage",)  # type: ignore[attr-defined]
    assert info.value.usage.usd == pytest.approx(0.1)  # type: ignore[attr-defined]


def test_reported_usage_is_judged_against_what_hz_allowed() -> None:
    assert judge(1000, 200, input_limit=1000, output_asked=200) is None
    assert judge(1001, 10, input_limit=1000, output_asked=200) == "over-reported"  # more input than was sent
    assert judge(10, 201, input_limit=1000, output_asked=200) == "over-reported"  # more output than allowed
    assert judge(0, 0, input_limit=1000, output_asked=200) == "no-usage"
