"""A turn killed in the middle of a tool call: the next turn gives the model the call paired with an
`interrupted` result, and a tool that is not replay-safe is never run again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.runners.base import ToolSpec
from hz.runners.conversation import INTERRUPTED_TEXT
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
DIES_IN_A_TOOL = """
import os, signal
from datetime import UTC, datetime
from pathlib import Path
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from hz.tick.daemon import tick
from hz.runners.base import ToolSpec
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price

def model(messages, info):
    return ModelResponse(parts=[ToolCallPart("handoff", {"task": "fix the build"}, tool_call_id="call-1")])

def handoff(args):
    os.kill(os.getpid(), signal.SIGKILL)

tool = ToolSpec("handoff", "Hand a task to a coding agent.", False, handoff)
runner = ModelRunner(FunctionModel(model), Price(0.0, 0.0, 0.0))
tick(root=Path.cwd(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC), runner=runner, tools=(tool,))
"""


def test_the_next_turn_sees_the_interrupted_call_and_the_unsafe_tool_is_not_rerun(repo: Path) -> None:
    adopt(contract_text(), now=MONDAY)
    died = subprocess.run([sys.executable, "-c", DIES_IN_A_TOOL], cwd=repo, env=dict(os.environ),
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert died.returncode == -signal.SIGKILL, died.stderr

    seen: list[list[ModelMessage]] = []
    calls: list[dict[str, Any]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        drafts = [{"output": "note", "facet": f, "text": "x"} for f in ("summary", "risks")]
        return ModelResponse(parts=[ToolCallPart("final_result", {"kind": "draft", "report": "r", "drafts": drafts})])

    tool = ToolSpec("handoff", "Hand a task to a coding agent.", False, lambda args: calls.append(args) or "done")
    runner = ModelRunner(FunctionModel(model), Price(0.0, 0.0, 0.0))
    report = tick(root=repo, now=MONDAY + timedelta(minutes=1), runner=runner, tools=(tool,))
    assert [(e["action"], e["disposition"]) for e in report.woken] == [("resumed", "drafted")]
    assert calls == []
    returns = [p for m in seen[0] for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [(p.tool_call_id, p.content) for p in returns] == [("call-1", INTERRUPTED_TEXT)]
    called = [p for m in seen[0] for p in m.parts if isinstance(p, ToolCallPart)]
    assert [p.tool_call_id for p in called] == ["call-1"]
