"""The codex runner against a scripted `codex` on PATH that prints the JSONL events the real CLI prints."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from hz.runners.base import RunnerFailed, RunnerTimeout, ThinkRequest
from hz.runners.codex import CodexRunner
from hz.runners.pricing import Price
from hz.runners.settings import RunnerSettings

if TYPE_CHECKING:
    from tests.runners.conftest import FakeCli

Requests = Callable[..., ThinkRequest]
PRICE = Price(input=1.0, output=5.0, cached=0.05)
OUTCOME = {"kind": "question", "report": "asked which epic", "question": "Which epic does T-2 belong to?"}


def events(*lines: dict[str, Any], exit_code: int = 0) -> str:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    return f"sys.stdout.write({text!r})\nsys.exit({exit_code})"


def success(answer: str) -> str:
    return events(
        {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "**Reading the tickets**"}},
        {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": answer}},
        {
            "type": "turn.completed",
            "usage": {"input_tokens": 24763, "cached_input_tokens": 24448, "output_tokens": 122},
        },
    )


def test_success_reads_the_last_agent_message_and_prices_the_tokens(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("codex", success(json.dumps(OUTCOME)))
    recorded: list[dict[str, Any]] = []
    runner = CodexRunner("codex", "gpt-6.1-terra", PRICE, fake_cli.environ)
    result = runner.think(make_request(record=recorded.append))

    assert result.outcome.question == "Which epic does T-2 belong to?"
    assert (result.usage.input_tokens, result.usage.cached_tokens, result.usage.output_tokens) == (24763, 24448, 122)
    assert result.usage.usd == pytest.approx((315 * 1.0 + 24448 * 0.05 + 122 * 5.0) / 1e6)
    assert result.usage.requests == 1
    assert [e["event"]["type"] for e in recorded] == [
        "thread.started",
        "turn.started",
        "item.completed",
        "item.completed",
        "turn.completed",
    ]
    (call,) = fake_cli.calls()
    argv = call["argv"]
    assert argv[:6] == ["exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only", "--ephemeral"]
    assert argv[argv.index("--model") + 1] == "gpt-6.1-terra"
    assert argv[-1] == "-"
    assert call["stdin"].startswith('You keep the weekly status true.\n\n<input name="tickets">')


def test_a_failed_turn_is_a_clear_failure(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install(
        "codex",
        events(
            {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
            {"type": "turn.started"},
            {"type": "error", "message": "stream disconnected before completion: 401 Unauthorized"},
            {"type": "turn.failed", "error": {"message": "stream disconnected before completion: 401 Unauthorized"}},
            exit_code=1,
        ),
    )
    with pytest.raises(RunnerFailed) as info:
        CodexRunner("codex", None, PRICE, fake_cli.environ).think(make_request())
    assert info.value.message == "codex failed: stream disconnected before completion: 401 Unauthorized"


def test_a_line_that_is_not_json_is_a_failure(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("codex", 'print(\'{"type": "thread.started"}\')\nprint("Reading prompt from stdin...")')
    with pytest.raises(RunnerFailed) as info:
        CodexRunner("codex", None, PRICE, fake_cli.environ).think(make_request())
    assert info.value.message == "codex printed something that is not JSON: 'Reading prompt from stdin...'"


def test_an_answer_that_is_not_an_outcome_is_refused(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("codex", success("Here is the status you asked for."))
    with pytest.raises(RunnerFailed) as info:
        CodexRunner("codex", None, PRICE, fake_cli.environ).think(make_request())
    assert info.value.message == "codex answered with text that is not JSON: 'Here is the status you asked for.'"
    assert info.value.usage.output_tokens == 122


def test_a_hanging_codex_times_out(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("codex", "time.sleep(60)")
    with pytest.raises(RunnerTimeout) as info:
        CodexRunner("codex", None, PRICE, fake_cli.environ).think(make_request(timeout_s=0.5))
    assert info.value.message == "codex did not finish within 0.5 s and was stopped"


def test_without_a_configured_model_codex_keeps_its_own_and_is_priced_high(fake_cli: FakeCli) -> None:
    runner = CodexRunner.from_settings(RunnerSettings(), fake_cli.environ, "balanced")
    assert runner.model is None
    assert runner.price == Price(2.0, 10.0, 0.1)
    named = CodexRunner.from_settings(RunnerSettings(), fake_cli.environ, "gpt-5-codex")
    assert named.model == "gpt-5-codex"
