"""The claude-code runner against a scripted `claude` on PATH that prints what the real CLI prints."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from hz.runners.base import BudgetExceeded, RunnerFailed, RunnerNotConfigured, RunnerTimeout, ThinkRequest
from hz.runners.claude_code import ClaudeCodeRunner
from hz.runners.pricing import PRICES
from hz.runners.settings import RunnerSettings

if TYPE_CHECKING:
    from tests.runners.conftest import FakeCli

Requests = Callable[..., ThinkRequest]

OUTCOME = {
    "kind": "draft",
    "report": "drafted week 48",
    "drafts": [
        {"output": "status", "facet": "done", "text": "- Ship the importer"},
        {"output": "status", "facet": "summary", "text": "Quiet week; release on Friday."},
    ],
    "lessons": [],
    "amendment": None,
    "question": None,
    "summary": None,
}
USAGE = {
    "input_tokens": 12,
    "cache_creation_input_tokens": 4200,
    "cache_read_input_tokens": 9800,
    "output_tokens": 310,
    "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
    "service_tier": "standard",
    "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 4200},
}


def result(**fields: Any) -> dict[str, Any]:
    base = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 2830,
        "duration_api_ms": 2711,
        "num_turns": 1,
        "result": "",
        "session_id": "3f1c2d4e-8a7b-4c1d-9e2f-0a1b2c3d4e5f",
        "total_cost_usd": 0.0291,
        "usage": USAGE,
        "modelUsage": {"claude-sonnet-5-5": {"inputTokens": 12, "outputTokens": 310, "costUSD": 0.0291}},
        "permission_denials": [],
        "uuid": "7d2e9c41-3b5a-4f6e-8d1c-2a3b4c5d6e7f",
    }
    return {**base, **fields}


def prints(payload: dict[str, Any], exit_code: int = 0) -> str:
    return f"print({json.dumps(json.dumps(payload))})\nsys.exit({exit_code})"


def runner(fake: FakeCli, model: str | None = "sonnet") -> ClaudeCodeRunner:
    return ClaudeCodeRunner("claude", model, PRICES["sonnet"], fake.environ)


def test_success_reads_structured_output_usage_and_cost(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("claude", prints(result(structured_output=OUTCOME)))
    recorded: list[dict[str, Any]] = []
    outcome = runner(fake_cli).think(make_request(max_usd=0.5, max_turns=4, record=recorded.append))

    assert outcome.outcome.drafts == {
        "status": {"done": "- Ship the importer", "summary": "Quiet week; release on Friday."}
    }
    assert outcome.usage.usd == pytest.approx(0.0291)
    assert (outcome.usage.input_tokens, outcome.usage.cached_tokens, outcome.usage.output_tokens) == (14012, 9800, 310)
    assert outcome.usage.requests == 1
    assert recorded == list(outcome.transcript)
    assert recorded[0]["result"]["session_id"] == "3f1c2d4e-8a7b-4c1d-9e2f-0a1b2c3d4e5f"

    (call,) = fake_cli.calls()
    argv = call["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"]
    # the run's grant: the cap, or what 20,000 tokens cost at sonnet's dearest price (0.2 USD), if less
    assert argv[argv.index("--max-budget-usd") + 1] == "0.200000"
    assert argv[argv.index("--max-turns") + 1] == "4"
    assert argv[argv.index("--model") + 1] == "sonnet"
    assert argv[argv.index("--tools") + 1] == ""
    assert argv[argv.index("--system-prompt") + 1] == "You keep the weekly status true."
    schema = json.loads(argv[argv.index("--json-schema") + 1])
    assert schema["required"] == ["amendment", "drafts", "kind", "lessons", "question", "report", "summary"]
    assert "--no-session-persistence" in argv and "--strict-mcp-config" in argv
    assert call["stdin"].startswith('<input name="tickets">3 tickets</input>\n\nFinish this turn')
    assert 19_000 < int(call["max_output"]) < 20_000  # what the grant buys beside the prompt
    assert os.path.basename(call["cwd"]).startswith("hz-think-")


def test_a_fenced_json_result_text_is_read_too(fake_cli: FakeCli, make_request: Requests) -> None:
    text = "```json\n" + json.dumps({"kind": "nothing", "report": "nothing moved"}) + "\n```"
    fake_cli.install("claude", prints(result(result=text)))
    assert runner(fake_cli).think(make_request()).outcome.report == "nothing moved"


def test_over_budget_is_budget_exceeded_with_the_spend(fake_cli: FakeCli, make_request: Requests) -> None:
    payload = result(subtype="error_max_budget_usd", is_error=True, num_turns=2, total_cost_usd=0.1043, errors=[])
    del payload["result"]
    fake_cli.install("claude", prints(payload, exit_code=1))
    with pytest.raises(BudgetExceeded) as info:
        runner(fake_cli).think(make_request(max_usd=0.1))
    assert info.value.message == "claude-code stopped at its budget of 0.1 USD"
    assert info.value.usage.usd == pytest.approx(0.1043)  # recorded as reported, beyond the grant: flagged
    assert info.value.usage.flags == ("over-reported",)
    assert info.value.usage.requests == 2


def test_an_api_error_result_is_a_clear_failure(fake_cli: FakeCli, make_request: Requests) -> None:
    error = 'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'
    fake_cli.install("claude", prints(result(is_error=True, result=error, total_cost_usd=0), exit_code=1))
    with pytest.raises(RunnerFailed) as info:
        runner(fake_cli).think(make_request())
    assert info.value.message == f"claude-code failed: {error}"


def test_the_turn_limit_is_a_failure(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("claude", prints(result(subtype="error_max_turns", is_error=True, num_turns=3), exit_code=1))
    with pytest.raises(RunnerFailed) as info:
        runner(fake_cli).think(make_request(max_turns=3))
    assert info.value.message == "claude-code reached its limit of 3 turns before it answered"


def test_a_non_zero_exit_without_json_quotes_stderr(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("claude", 'sys.stderr.write("Invalid API key · Please run /login\\n")\nsys.exit(1)')
    with pytest.raises(RunnerFailed) as info:
        runner(fake_cli).think(make_request())
    assert info.value.message == "claude-code exited with status 1: Invalid API key · Please run /login"


def test_malformed_json_is_a_failure_not_a_traceback(fake_cli: FakeCli, make_request: Requests) -> None:
    fake_cli.install("claude", 'print(\'{"type": "result", "subtype": "succ\')')
    with pytest.raises(RunnerFailed) as info:
        runner(fake_cli).think(make_request())
    assert (
        info.value.message == 'claude-code printed something that is not JSON: \'{"type": "result", "subtype": "succ\''
    )


def test_an_outcome_that_misses_a_facet_is_refused(fake_cli: FakeCli, make_request: Requests) -> None:
    partial = {**OUTCOME, "drafts": OUTCOME["drafts"][:1]}
    fake_cli.install("claude", prints(result(structured_output=partial)))
    with pytest.raises(RunnerFailed) as info:
        runner(fake_cli).think(make_request())
    assert info.value.message == "claude-code answered with an unusable outcome: output `status` lacks facet `summary`"
    assert info.value.usage.usd == pytest.approx(0.0291)


def test_a_hanging_cli_is_killed_with_its_children(fake_cli: FakeCli, make_request: Requests) -> None:
    pid_file = fake_cli.bin / "child.pid"
    fake_cli.install(
        "claude",
        "import subprocess\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)",
    )
    started = time.monotonic()
    with pytest.raises(RunnerTimeout) as info:
        runner(fake_cli).think(make_request(timeout_s=1.0))
    assert time.monotonic() - started < 10
    assert info.value.message == "claude-code did not finish within 1 s and was stopped"
    child = int(pid_file.read_text())
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a killed child of the killed fake may linger as a zombie until init reaps it
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_a_missing_cli_says_how_to_fix_it(fake_cli: FakeCli, make_request: Requests) -> None:
    missing = ClaudeCodeRunner("claude-not-installed", None, PRICES["sonnet"], fake_cli.environ)
    with pytest.raises(RunnerNotConfigured) as info:
        missing.think(make_request())
    assert info.value.message == "runner not configured: the claude-code command 'claude-not-installed' was not found"
    assert info.value.hint == "install it and log in, or set command under [runners.claude-code] in config.toml"


def test_settings_choose_the_model_and_its_price(fake_cli: FakeCli) -> None:
    settings = RunnerSettings.from_config({"runners": {"claude-code": {"command": "my-claude", "deep": "opus"}}})
    deep = ClaudeCodeRunner.from_settings(settings, fake_cli.environ, "deep")
    assert (deep.command, deep.model, deep.price) == ("my-claude", "opus", PRICES["opus"])
    fast = ClaudeCodeRunner.from_settings(settings, fake_cli.environ, "fast")
    assert fast.model == "haiku"
    assert fast.worst_case_usd(100_000) == pytest.approx(PRICES["haiku"].worst_case(100_000))


def test_an_execution_error_names_its_subtype(fake_cli: FakeCli, make_request: Requests) -> None:
    payload = result(subtype="error_during_execution", is_error=True, errors=["Request was aborted."])
    del payload["result"]
    fake_cli.install("claude", prints(payload, exit_code=1))
    with pytest.raises(RunnerFailed) as info:
        runner(fake_cli).think(make_request())
    assert info.value.message == "claude-code failed (error_during_execution): Request was aborted."
