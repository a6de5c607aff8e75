"""`hz heinzel stop` from another process while a turn thinks: the turn ends abandoned (stopped)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def test_stop_from_another_process_ends_the_running_turn(repo: Path) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    said: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not said:
            command = [sys.executable, "-m", "hz", "heinzel", "stop", "weekly-note"]
            done = subprocess.run(command, cwd=repo, env=dict(os.environ), capture_output=True, text=True, check=False)
            said.append(done.stdout)
        half = {"kind": "draft", "report": "half", "drafts": [{"output": "note", "facet": "summary", "text": "x"}]}
        return ModelResponse(parts=[ToolCallPart("final_result", half)])

    report: Any = tick(root=repo, now=MONDAY, runner=ModelRunner(FunctionModel(model), Price(0, 0, 0)))
    assert said == ["weekly-note is awake in another process; asked its turn to stop at the next step\n"]
    assert [(e["disposition"], e["reason"]) for e in report.woken] == [("abandoned", "stopped")]
    events = read_spine(home() / "heinzel" / agent / SPINE).events
    assert [e.data["reason"] for e in events if e.kind == "turn.finished"] == ["stopped"]
    assert not (home() / "heinzel" / agent / "stop").exists()
