"""A chat that arrives while a turn thinks reaches the model's next request scrubbed of the environment's
secrets, like everything else the model reads (issue 14, finding 3: secrets never reach a prompt)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
TOKEN = "ghp_pastedIntoChat00042"


def test_a_chat_during_a_turn_is_scrubbed_before_the_model_reads_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    adopt(contract_text(), now=MONDAY)
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(repr(messages))
        if len(seen) == 1:  # the user chats while the turn thinks, then the model asks for a tool it lacks
            command = [sys.executable, "-m", "hz", "heinzel", "chat", "weekly-note", f"use my token {TOKEN}"]
            subprocess.run(command, cwd=repo, env=dict(os.environ), capture_output=True, text=True, check=True)
            return ModelResponse(parts=[ToolCallPart("no_such_tool", {})])
        nothing = {"kind": "nothing", "report": "read the chat"}
        return ModelResponse(parts=[ToolCallPart("final_result", nothing)])

    tick(root=repo, now=MONDAY, runner=ModelRunner(FunctionModel(model), Price(0, 0, 0)))

    assert len(seen) == 2
    assert "use my token [redacted]" in seen[1]
    assert "use my token [redacted]" in seen[1]
    assert TOKEN not in seen[1]
