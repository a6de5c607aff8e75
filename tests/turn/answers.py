"""A test model for `FunctionModel`: it gives every request the same structured outcome and keeps the user
prompts it was sent, so a test can check both what the turn did and what the model saw."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo


class SameAnswer:
    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.seen: list[str] = []  # the user prompts of each request, joined

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append("\n".join(p.content for m in messages for p in m.parts
                                   if isinstance(p, UserPromptPart) and isinstance(p.content, str)))  # fmt: skip
        return ModelResponse(parts=[ToolCallPart("final_result", self.answer)])
