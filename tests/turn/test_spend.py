"""Spend is counted once: a turn killed after its think step is resumed without another model call."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
PRICED_TICK = """
from datetime import UTC, datetime
from pathlib import Path
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from hz.tick.daemon import tick
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price

def model(messages, info):
    drafts = [{"output": "note", "facet": f, "text": "x"} for f in ("summary", "risks")]
    return ModelResponse(parts=[ToolCallPart("final_result", {"kind": "draft", "report": "r", "drafts": drafts})])

runner = ModelRunner(FunctionModel(model), Price(input=3.0, output=15.0, cached=0.3))
tick(root=Path.cwd(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC), runner=runner)
"""


@pytest.mark.parametrize("point", ["step.think", "effect.started", "draft.placed"])
def test_a_turn_killed_after_think_spends_once(repo: Path, point: str) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    env = {**os.environ, "HZ_CRASH_AT": point}
    died = subprocess.run([sys.executable, "-c", PRICED_TICK], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert died.returncode == -signal.SIGKILL, died.stderr
    calls: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        raise AssertionError("the think step was recorded; it must not run again")

    runner = ModelRunner(FunctionModel(model), Price(input=3.0, output=15.0, cached=0.3))
    report = tick(root=repo, now=MONDAY + timedelta(minutes=1), runner=runner)
    assert [(e["action"], e["disposition"]) for e in report.woken] == [("resumed", "drafted")]
    assert calls == []
    events = read_spine(home() / "heinzel" / agent / SPINE).events
    think = [e.data["usd"] for e in events if e.kind == "turn.step" and e.data["step"] == "think"]
    finished = [e.data["usd"] for e in events if e.kind == "turn.finished"]
    assert len(think) == 1 and think[0] > 0
    assert finished == think
    assert [e.kind for e in events].count("draft.placed") == 1
