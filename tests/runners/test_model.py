"""The model runner driven by pydantic-ai's FunctionModel and TestModel: no network, real agent runs."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from hz.runners.base import BudgetExceeded, RunnerFailed, RunnerTimeout, ThinkRequest, ToolSpec
from hz.runners.conversation import INTERRUPTED_TEXT
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price

PRICE = Price(input=2.0, output=10.0, cached=0.2)
DRAFT = {
    "kind": "draft",
    "report": "drafted the weekly status",
    "drafts": [
        {"output": "status", "facet": "done", "text": "- shipped the importer"},
        {"output": "status", "facet": "summary", "text": "A calm week."},
    ],
}
DRAFTS = {"status": {"done": "- shipped the importer", "summary": "A calm week."}}

Requests = Callable[..., ThinkRequest]


def answer_with(args: dict[str, Any]) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart("final_result", args)])


def user_texts(message: ModelMessage) -> list[str]:
    return [p.content for p in message.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]


def test_structured_outcome_usage_and_cost(make_request: Requests) -> None:
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        assert info.instructions == "You keep the weekly status true."
        return answer_with(DRAFT)

    recorded: list[dict[str, Any]] = []
    result = ModelRunner(FunctionModel(model), PRICE).think(make_request(record=recorded.append))

    assert result.outcome.kind == "draft"
    assert result.outcome.drafts == DRAFTS
    assert result.usage.requests == 1
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    expected = (result.usage.input_tokens * 2.0 + result.usage.output_tokens * 10.0) / 1e6
    assert result.usage.usd == pytest.approx(expected)
    # the context message, then the task prompt
    context, task = [t for m in seen[0] for t in user_texts(m)]
    assert context == '<input name="tickets">3 tickets</input>'
    assert task.startswith("Finish this turn with exactly one structured outcome.")
    assert "- status: done, summary" in task
    assert recorded == list(result.transcript)
    assert [entry["kind"] for entry in recorded] == ["request", "response", "request"]


def test_test_model_calls_the_tools_and_returns_the_outcome(make_request: Requests) -> None:
    calls: list[dict[str, Any]] = []
    tool = ToolSpec("read_ticket", "Read one ticket.", True, lambda args: calls.append(args) or "T-1: done")
    model = TestModel(custom_output_args={"kind": "nothing", "report": "nothing moved"})
    result = ModelRunner(model, PRICE).think(make_request(tools=(tool,)))
    assert result.outcome.kind == "nothing"
    assert result.outcome.report == "nothing moved"
    assert len(calls) == 1
    assert result.usage.requests == 2


def test_an_incomplete_draft_is_sent_back_to_the_model(make_request: Requests) -> None:
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        if len(seen) == 1:
            return answer_with({**DRAFT, "drafts": DRAFT["drafts"][:1]})
        return answer_with(DRAFT)

    result = ModelRunner(FunctionModel(model), PRICE).think(make_request())
    assert result.outcome.drafts == DRAFTS
    retries = [p for p in seen[1][-1].parts if isinstance(p, ToolReturnPart) and p.outcome == "retried"]
    assert [r.content for r in retries] == ["output `status` lacks facet `summary`"]


def test_steering_reaches_the_next_model_request(make_request: Requests) -> None:
    inbox: list[str] = []

    def steering() -> list[str]:
        drained = list(inbox)
        inbox.clear()
        return drained

    def chat_arrives(args: dict[str, Any]) -> str:
        inbox.append("keep it under ten lines")  # the user writes while the tool runs
        return "3 tickets"

    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("list_tickets", {})])
        return answer_with(DRAFT)

    tool = ToolSpec("list_tickets", "List tickets.", True, chat_arrives)
    result = ModelRunner(FunctionModel(model), PRICE).think(make_request(tools=(tool,), steering=steering))
    assert result.outcome.kind == "draft"
    assert not any("keep it under ten lines" in t for m in seen[0] for t in user_texts(m))
    assert [t for m in seen[1] for t in user_texts(m)][-1] == "keep it under ten lines"
    steered = [e for e in result.transcript if any(p.get("content") == "keep it under ten lines" for p in e["parts"])]
    assert len(steered) == 1


def looping_model(seen: list[AgentInfo]) -> FunctionModel:
    """A model that keeps calling a tool with a long argument and never finishes on its own."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        return ModelResponse(parts=[ToolCallPart("search", {"query": "status " * 150})])

    return FunctionModel(model)


def search_tool() -> ToolSpec:
    return ToolSpec("search", "Search.", True, lambda args: "result " * 100)


def test_the_token_budget_stops_the_run_before_it_crosses(make_request: Requests) -> None:
    seen: list[AgentInfo] = []
    runner = ModelRunner(looping_model(seen), PRICE, max_output_tokens=500)
    with pytest.raises(BudgetExceeded) as info:
        runner.think(make_request(tools=(search_tool(),), max_tokens=3_000, max_usd=100.0))
    usage = info.value.usage
    assert 1 <= usage.requests == len(seen) < 10
    assert usage.input_tokens + usage.output_tokens <= 3_000
    assert info.value.message.startswith("the next model request would cross the turn's budget of 3000 tokens")
    assert all(i.model_settings is not None and i.model_settings["max_tokens"] <= 500 for i in seen)


def test_the_usd_cap_bounds_the_spend(make_request: Requests) -> None:
    seen: list[AgentInfo] = []
    runner = ModelRunner(looping_model(seen), PRICE)
    with pytest.raises(BudgetExceeded) as info:
        runner.think(make_request(tools=(search_tool(),), max_tokens=50_000, max_usd=0.02))
    assert 1 <= len(seen) == info.value.usage.requests
    assert info.value.usage.usd <= 0.02
    assert info.value.message.startswith("the turn cap of 0.0200 USD has ")
    # each answer was sized to what was left: its worst case fits the cap
    assert all(i.model_settings is not None and i.model_settings["max_tokens"] <= 2_000 for i in seen)


def test_a_budget_too_small_for_the_context_calls_no_model(make_request: Requests) -> None:
    seen: list[AgentInfo] = []
    with pytest.raises(BudgetExceeded) as info:
        ModelRunner(looping_model(seen), PRICE).think(make_request(max_tokens=100))
    assert seen == []
    assert info.value.usage.requests == 0


class Crash(BaseException):
    """Stands in for the process dying in the middle of a tool call."""


def crashed_transcript(make_request: Requests, tool: ToolSpec) -> list[dict[str, Any]]:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart(tool.name, {"to": "@priya"}, tool_call_id="call-1")])

    recorded: list[dict[str, Any]] = []
    with pytest.raises(BaseException) as info:
        ModelRunner(FunctionModel(model), PRICE).think(make_request(tools=(tool,), record=recorded.append))
    assert "Crash" in repr(info.value)
    return recorded


def resume_after_crash(make_request: Requests, replay_safe: bool) -> tuple[list[list[ModelMessage]], int]:
    runs = {"count": 0}

    def handoff(args: dict[str, Any]) -> str:
        runs["count"] += 1
        if runs["count"] == 1:
            raise Crash
        return "handed off"

    tool = ToolSpec("handoff", "Hand the task to a person.", replay_safe, handoff)
    prior = crashed_transcript(make_request, tool)
    assert prior[-1]["kind"] == "response"  # the call was on record before the tool ran

    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return answer_with({"kind": "nothing", "report": "handoff checked"})

    result = ModelRunner(FunctionModel(model), PRICE).think(make_request(tools=(tool,), prior=tuple(prior)))
    assert result.outcome.report == "handoff checked"
    assert list(result.transcript[: len(prior)]) == prior
    return seen, runs["count"]


def test_an_interrupted_unsafe_tool_call_gets_an_interrupted_result(make_request: Requests) -> None:
    seen, runs = resume_after_crash(make_request, replay_safe=False)
    assert runs == 1  # never run again
    last = seen[0][-1]
    assert isinstance(last, ModelRequest)
    returns = [p for p in last.parts if isinstance(p, ToolReturnPart)]
    assert [(r.tool_call_id, r.content) for r in returns] == [("call-1", INTERRUPTED_TEXT)]
    assert INTERRUPTED_TEXT.startswith("interrupted: ")


def test_an_interrupted_replay_safe_tool_call_is_run_again(make_request: Requests) -> None:
    seen, runs = resume_after_crash(make_request, replay_safe=True)
    assert runs == 2
    returns = [p for p in seen[0][-1].parts if isinstance(p, ToolReturnPart)]
    assert [(r.tool_call_id, r.content) for r in returns] == [("call-1", "handed off")]


def test_a_slow_model_times_out(make_request: Requests) -> None:
    async def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(5)
        return answer_with(DRAFT)

    with pytest.raises(RunnerTimeout) as info:
        ModelRunner(FunctionModel(model), PRICE).think(make_request(timeout_s=0.2))
    assert info.value.message == "the model did not finish within 0.2 s"


def test_another_runners_record_is_not_resumed_but_kept(make_request: Requests) -> None:
    offline_entry = {"runner": "offline", "outcome": {"kind": "nothing", "report": "offline"}}
    result = ModelRunner(FunctionModel(lambda m, i: answer_with(DRAFT)), PRICE).think(
        make_request(prior=(offline_entry,))
    )
    assert result.outcome.kind == "draft"
    assert result.transcript[0] == offline_entry
    assert [e["kind"] for e in result.transcript[1:]] == ["request", "response", "request"]


CHILD = """
import json, os, sys, time
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from hz.runners.base import ThinkRequest, ToolSpec
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price

log = sys.argv[1]

def record(entry):
    with open(log, "a") as f:
        f.write(json.dumps(entry) + "\\n")
        f.flush()
        os.fsync(f.fileno())

def hang(args):
    time.sleep(120)  # the parent kills us here, in the middle of the call
    return "sent"

model = FunctionModel(lambda m, i: ModelResponse(parts=[ToolCallPart("notify", {"to": "@priya"}, tool_call_id="n-1")]))
tool = ToolSpec("notify", "Send a notice.", False, hang)
request = ThinkRequest("hz-1", "t-1", "Keep the status true.", (), {}, {}, frozenset({"nothing"}), 10_000, 1.0, 300.0,
                       tools=(tool,), record=record)
ModelRunner(model, Price(1.0, 1.0, 1.0)).think(request)
"""


def test_a_kill_9_during_an_unsafe_call_resumes_with_interrupted(tmp_path: Path, make_request: Requests) -> None:
    log = tmp_path / "think.jsonl"
    with subprocess.Popen([sys.executable, "-c", CHILD, str(log)]) as child:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = log.read_text().splitlines() if log.exists() else []
            if any(json.loads(line)["kind"] == "response" for line in lines):
                break
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
    prior = tuple(json.loads(line) for line in log.read_text().splitlines())
    assert [e["kind"] for e in prior] == ["request", "response"]

    calls: list[dict[str, Any]] = []
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return answer_with({"kind": "nothing", "report": "the notice may have gone out; not sent again"})

    tool = ToolSpec("notify", "Send a notice.", False, lambda args: calls.append(args) or "sent")
    request = make_request(tools=(tool,), prior=prior, want=frozenset({"nothing"}))
    result = ModelRunner(FunctionModel(model), PRICE).think(request)
    assert calls == []
    returns = [p for p in seen[0][-1].parts if isinstance(p, ToolReturnPart)]
    assert [(r.tool_call_id, r.content) for r in returns] == [("n-1", INTERRUPTED_TEXT)]
    assert result.outcome.report == "the notice may have gone out; not sent again"


def test_the_request_limit_is_a_failure_not_a_cap(make_request: Requests) -> None:
    seen: list[AgentInfo] = []
    with pytest.raises(RunnerFailed) as info:
        ModelRunner(looping_model(seen), PRICE).think(make_request(tools=(search_tool(),), max_turns=3))
    assert info.value.message == "the model used all 3 requests this turn allows without an outcome"
    assert len(seen) == 3
    assert info.value.usage.requests == 3


def test_think_works_from_inside_an_event_loop(make_request: Requests) -> None:
    async def caller() -> str:
        result = ModelRunner(FunctionModel(lambda m, i: answer_with(DRAFT)), PRICE).think(make_request())
        return result.outcome.kind

    assert asyncio.run(caller()) == "draft"


def test_an_unanswered_outcome_call_is_asked_again_and_recorded(make_request: Requests) -> None:
    def crashing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return answer_with(DRAFT)

    first = ModelRunner(FunctionModel(crashing), PRICE).think(make_request())
    prior = first.transcript[:2]  # the request and the answer; the crash came before the answer was taken
    assert [e["kind"] for e in prior] == ["request", "response"]

    recorded: list[dict[str, Any]] = []
    again = ModelRunner(FunctionModel(lambda m, i: answer_with({**DRAFT, "report": "asked again"})), PRICE)
    result = again.think(make_request(prior=prior, record=recorded.append))
    assert result.outcome.report == "asked again"
    assert [e["kind"] for e in recorded] == ["response", "request"]
    assert recorded[0]["parts"][0]["args"]["report"] == "asked again"


def test_an_outcome_that_breaks_the_rules_is_explained_to_the_model(make_request: Requests) -> None:
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        if len(seen) == 1:
            return answer_with({"kind": "nothing", "report": ""})
        return answer_with({"kind": "nothing", "report": "nothing moved"})

    result = ModelRunner(FunctionModel(model), PRICE).think(make_request())
    assert result.outcome.report == "nothing moved"
    retried = [p for p in seen[1][-1].parts if isinstance(p, ToolReturnPart) and p.outcome == "retried"]
    assert [r.content for r in retried] == ["report: String should have at least 1 character"]
