"""Reserve before each model request, settle after: the real `openai` and `anthropic` clients against
loopback servers that report usage honestly, over-report, report nothing or hold a request (issue 13)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.runners.base import (
    BudgetExceeded,
    ContextMessage,
    RunnerFailed,
    RunnerNotConfigured,
    RunnerTimeout,
    ThinkRequest,
)
from hz.runners.model import ModelRunner
from hz.runners.registry import get_runner
from hz.runners.settings import RunnerSettings
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Ledger, Limits
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.model_endpoint import NOTHING_CJK, ModelEndpoint
from tests.fakes.openai_server import FakeOpenAI

Requests = Callable[..., ThinkRequest]
SERVERS: dict[str, type[ModelEndpoint]] = {"openai": FakeOpenAI, "anthropic": FakeAnthropic}
MODEL = "hz-test-model"
NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
CJK = "周报草稿记录本周合并的变更与风险" * 3750  # 60,000 characters, 180,000 UTF-8 bytes


@pytest.fixture
def endpoint() -> Iterator[Callable[..., ModelEndpoint]]:
    with ExitStack() as running:

        def start(provider: str, **options: Any) -> ModelEndpoint:
            return running.enter_context(SERVERS[provider](**options))

        yield start


def model_runner(
    provider: str, server: ModelEndpoint, *, price: tuple[float, float], max_output: int = 4096
) -> ModelRunner:
    config = {
        "runners": {
            "model": {
                "provider": provider,
                "base_url": server.base_url,
                "model": MODEL,
                "max_output_tokens": max_output,
            },
            "prices": {MODEL: {"input": price[0], "output": price[1]}},
        }
    }
    runner = get_runner("model", RunnerSettings.from_config(config), environ={"ANTHROPIC_API_KEY": "sk-hz-test"})
    assert isinstance(runner, ModelRunner)
    return runner


def cjk_request(make_request: Requests, **fields: Any) -> ThinkRequest:
    return make_request(
        messages=(ContextMessage("user", f'<input name="notes">{CJK}</input>'),), max_tokens=10**6, **fields
    )


def sent_limit(body: dict[str, Any]) -> int:
    return int(body.get("max_completion_tokens", body.get("max_tokens")))


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_60000_cjk_characters_never_cost_more_than_the_cap(
    provider: str, endpoint: Callable[..., ModelEndpoint], make_request: Requests
) -> None:
    # 180,000 honest input tokens at 4 USD per million are 0.72 USD: more than the cap before any answer
    server = endpoint(provider, outcome=NOTHING_CJK)
    with pytest.raises(BudgetExceeded) as info:
        model_runner(provider, server, price=(4.0, 20.0)).think(cjk_request(make_request, max_usd=0.5))
    assert server.requests == []
    assert info.value.usage.usd == 0.0
    assert info.value.message.startswith("the turn cap of 0.5000 USD has 0.5000 USD left; the model endpoint's next")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_cjk_request_that_fits_is_sized_to_the_cap_and_recorded_as_reported(
    provider: str, endpoint: Callable[..., ModelEndpoint], make_request: Requests
) -> None:
    server = endpoint(provider, outcome=NOTHING_CJK)
    result = model_runner(provider, server, price=(2.0, 10.0), max_output=32_000).think(
        cjk_request(make_request, max_usd=0.5)
    )
    ((_, _, body),) = server.requests
    limit = sent_limit(body)
    assert 64 <= limit < 32_000  # the answer was cut to what the cap leaves beside the input's bound
    assert result.usage.input_tokens >= 180_000
    worst = (result.usage.input_tokens * 2.0 + limit * 10.0) / 1e6
    assert result.usage.usd <= worst <= 0.5
    assert result.usage.usd == pytest.approx(
        (result.usage.input_tokens * 2.0 + result.usage.output_tokens * 10.0) / 1e6
    )
    assert result.usage.flags == ()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_output_limit_is_on_the_wire_and_the_worst_case_fits_the_cap(
    provider: str, endpoint: Callable[..., ModelEndpoint], make_request: Requests
) -> None:
    server = endpoint(provider)
    result = model_runner(provider, server, price=(2.0, 10.0)).think(make_request(max_usd=0.02))
    ((_, _, body),) = server.requests
    limit = sent_limit(body)
    # what the request could have cost at most, with the input the server counted, stays under the cap
    assert 64 <= limit < 4096
    assert (result.usage.input_tokens * 2.0 + limit * 10.0) / 1e6 <= 0.02
    assert result.usage.flags == ()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_over_reporting_endpoint_is_recorded_as_reported_and_flagged(
    provider: str, endpoint: Callable[..., ModelEndpoint], make_request: Requests
) -> None:
    server = endpoint(provider, over_report=1000)
    result = model_runner(provider, server, price=(2.0, 10.0)).think(make_request(max_usd=0.5))
    ((_, _, body),) = server.requests
    assert result.usage.output_tokens == sent_limit(body) + 1000
    assert result.usage.flags == ("over-reported",)
    assert result.usage.usd == pytest.approx(
        (result.usage.input_tokens * 2.0 + result.usage.output_tokens * 10.0) / 1e6
    )


def test_no_usage_reported_counts_the_whole_reservation(
    endpoint: Callable[..., ModelEndpoint], make_request: Requests
) -> None:
    server = endpoint("openai", reports_usage=False)
    result = model_runner("openai", server, price=(2.0, 10.0)).think(make_request(max_usd=0.5))
    ((_, _, body),) = server.requests
    assert result.usage.flags == ("no-usage",)
    # the input's bound and the whole answer it was allowed: more than anything it could have cost
    assert result.usage.usd > sent_limit(body) * 10.0 / 1e6
    assert result.usage.usd <= 0.5


def test_an_anthropic_answer_without_usage_fails_clearly_and_counts_the_reservation(
    endpoint: Callable[..., ModelEndpoint], make_request: Requests
) -> None:
    server = endpoint("anthropic", reports_usage=False)
    with pytest.raises(RunnerFailed) as info:
        model_runner("anthropic", server, price=(2.0, 10.0)).think(make_request(max_usd=0.5))
    assert info.value.message.startswith("the model endpoint answered in a shape hz cannot read: AttributeError")
    assert info.value.usage.flags == ("no-usage",)
    assert sent_limit(server.requests[0][2]) * 10.0 / 1e6 < info.value.usage.usd <= 0.5


def test_a_request_cut_off_by_the_timeout_counts_its_whole_reservation(
    endpoint: Callable[..., ModelEndpoint], make_request: Requests
) -> None:
    server = endpoint("openai")
    server.release.clear()  # held until the test ends: in flight past the client's timeout
    with pytest.raises(RunnerTimeout) as info:
        model_runner("openai", server, price=(2.0, 10.0)).think(make_request(max_usd=0.5, timeout_s=0.5))
    assert len(server.requests) == 1  # sent once: the client makes no retry of its own under one reservation
    assert info.value.usage.flags == ("no-usage",)
    assert 0 < info.value.usage.usd <= 0.5


def test_an_anthropic_endpoint_without_a_key_is_not_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    # the key in hz's own environment is not the one the settings name: the client must not find it by itself
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-not-for-this-endpoint")
    config = {
        "runners": {"model": {"provider": "anthropic", "base_url": "http://127.0.0.1:9", "api_key_env": "MY_LLM"}}
    }
    with pytest.raises(RunnerNotConfigured) as info:
        get_runner("model", RunnerSettings.from_config(config), environ={"ANTHROPIC_API_KEY": "sk-other"})
    assert (
        info.value.message
        == "runner not configured: the anthropic endpoint at http://127.0.0.1:9 needs an API key in $MY_LLM"
    )
    assert info.value.hint == "export the key, or set api_key_env under [runners.model] to the variable that holds it"


def test_an_openai_compatible_server_gets_the_configured_key_only(
    endpoint: Callable[..., ModelEndpoint], make_request: Requests, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hz-process-key")
    server = endpoint("openai")
    model_runner("openai", server, price=(0.0, 0.0)).think(make_request())
    ((_, headers, _),) = server.requests
    assert headers["authorization"] == "Bearer hz-local-endpoint"


def ledger_gate(folder: Path, turn: str, *, turn_usd: float = 0.5, day_usd: float = 0.5) -> LedgerGate:
    ledger = Ledger.open(folder)
    limits = Limits(turn_usd=turn_usd, day_usd=day_usd)
    return LedgerGate(ledger, agent="hz-01JAGENT", turn=turn, runner="model", limits=limits, clock=lambda: NOON)


def test_through_the_ledger_cjk_turns_never_record_more_than_the_day_cap(
    endpoint: Callable[..., ModelEndpoint], make_request: Requests, tmp_path: Path
) -> None:
    server = endpoint("anthropic", outcome=NOTHING_CJK)
    runner = model_runner("anthropic", server, price=(2.0, 10.0), max_output=32_000)
    first = runner.think(cjk_request(make_request, max_usd=0.5, spend=ledger_gate(tmp_path, "t-1")))
    with pytest.raises(BudgetExceeded) as info:  # what the day has left buys no second CJK request
        runner.think(cjk_request(make_request, max_usd=0.5, spend=ledger_gate(tmp_path, "t-2")))
    assert len(server.requests) == 1
    assert info.value.message.startswith("the day cap of 0.5000 USD has ")
    day = Ledger.open(tmp_path).day_total("2026-12-01")
    assert day == pytest.approx(first.usage.usd) and day <= 0.5


def test_an_over_reporting_endpoint_gets_no_further_request_that_day(
    endpoint: Callable[..., ModelEndpoint], make_request: Requests, tmp_path: Path
) -> None:
    server = endpoint("openai", over_report=1000)
    runner = model_runner("openai", server, price=(0.1, 0.5))
    first = runner.think(make_request(max_usd=0.5, spend=ledger_gate(tmp_path, "t-1", day_usd=5.0)))
    assert first.usage.flags == ("over-reported",)
    with pytest.raises(BudgetExceeded) as info:
        runner.think(make_request(max_usd=0.5, spend=ledger_gate(tmp_path, "t-2", day_usd=5.0)))
    assert len(server.requests) == 1
    assert info.value.message == (
        "the model endpoint over-reported its usage earlier today; hz makes no further request to it today"
    )
    assert Ledger.open(tmp_path).flags(turn="t-1") == ["over-reported"]
