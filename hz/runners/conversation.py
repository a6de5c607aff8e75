"""The messages a model runner sends: the engine's context, the task, and a resumed transcript.

A fresh think step sends the context messages followed by one task prompt. A resumed one continues
the recorded transcript; a tool call the crash left without a result is answered before the model is
asked again: a replay-safe tool is simply run again, any other gets an `interrupted` result so that
the model knows the effect may or may not have happened, and is never silently repeated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic_ai import ModelMessagesTypeAdapter
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from hz.runners.base import INTERRUPTED, RunnerFailed, ThinkRequest, ToolSpec
from hz.runners.prompt import task_prompt

INTERRUPTED_TEXT = (
    f"{INTERRUPTED}: this call was cut off by a crash or a stop before its result was recorded. It was not run "
    "again because it is not replay-safe, so its effect may or may not have happened."
)


def fresh_history(request: ThinkRequest) -> list[ModelMessage]:
    """The context messages and the task prompt, consecutive user messages sent as one request."""
    history: list[ModelMessage] = []
    for message in request.messages:
        if message.role == "user":
            history.append(ModelRequest(parts=[UserPromptPart(message.text)]))
        else:
            history.append(ModelResponse(parts=[TextPart(message.text)]))
    history.append(ModelRequest(parts=[UserPromptPart(task_prompt(request))]))
    return merge_requests(history)


def merge_requests(messages: Iterable[ModelMessage]) -> list[ModelMessage]:
    """Consecutive requests as one, as pydantic-ai sends them, so that counting messages stays exact."""
    merged: list[ModelMessage] = []
    for message in messages:
        previous = merged[-1] if merged else None
        if isinstance(message, ModelRequest) and isinstance(previous, ModelRequest):
            merged[-1] = dataclasses.replace(previous, parts=[*previous.parts, *message.parts])
        else:
            merged.append(message)
    return merged


def to_json(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    dumped: list[dict[str, Any]] = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    return dumped


def is_model_transcript(entries: Sequence[Mapping[str, Any]]) -> bool:
    """Whether recorded entries came from this runner (another runner's entries are not resumable)."""
    return bool(entries) and all(entry.get("kind") in ("request", "response") and "parts" in entry for entry in entries)


def from_json(entries: Sequence[Mapping[str, Any]]) -> list[ModelMessage]:
    try:
        return list(ModelMessagesTypeAdapter.validate_python(list(entries)))
    except ValueError as exc:
        raise RunnerFailed(
            "the recorded transcript of the interrupted think step is not a model transcript",
            hint="the turn body was changed by hand; retry the turn",
        ) from exc


def resumed_history(prior: Sequence[ModelMessage], tools: Sequence[ToolSpec]) -> list[ModelMessage]:
    """The prior transcript made ready to continue: no tool call left without a result.

    A trailing response with no call we own (plain text, or the outcome itself) is dropped, so the
    model is simply asked again: model calls are replay-safe.
    """
    history = merge_requests(prior)
    if not history or not isinstance(history[-1], ModelResponse):
        return history
    last = history[-1]
    by_name = {tool.name: tool for tool in tools}
    calls = [part for part in last.parts if isinstance(part, ToolCallPart)]
    if not calls or any(call.tool_name not in by_name for call in calls):
        return history[:-1]
    returns = [_answer(call, by_name[call.tool_name]) for call in calls]
    return [*history, ModelRequest(parts=returns)]


def _answer(call: ToolCallPart, tool: ToolSpec) -> ToolReturnPart:
    content = run_tool(tool, call.args_as_dict()) if tool.replay_safe else INTERRUPTED_TEXT
    return ToolReturnPart(tool_name=call.tool_name, content=content, tool_call_id=call.tool_call_id)


def run_tool(tool: ToolSpec, args: dict[str, Any]) -> str:
    """What a tool answered, as the model reads it: scrubbed of this process's secrets like every prompt."""
    from hz.secrets import scrub

    return scrub(tool.call(args))
