"""The contract's `hz:` tools reach the model through the real model runner, and stay in the repository."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
TOOLS = '  tools: ["hz:git.log.read", "hz:feed.item.list", "hz:file.text.read"]\n'

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("hz_git_log_read", {"max_count": 5}),
    ("hz_file_text_read", {"path": "docs/plan.md"}),
    ("hz_file_text_read", {"path": "../secret.txt"}),
    ("hz_file_text_read", {"path": "leak.txt"}),
    ("hz_file_text_read", {"path": ".git/config"}),
    ("hz_git_log_read", {"path": "/etc"}),
    ("hz_file_text_read", {"path": ".GIT/config"}),
    ("hz_file_text_read", {"path": "pipe"}),
]


def _commit(repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "plan.md").write_text("Ship the checkout rewrite on Thursday.\n")
    (repo.parent / "secret.txt").write_text("the key is 1234\n")
    os.symlink(repo.parent / "secret.txt", repo / "leak.txt")
    os.mkfifo(repo / "pipe")  # opened by a blocking read, it would hang the turn
    subprocess.run(["git", "add", "docs/plan.md"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "plan: ship on Thursday"], cwd=repo, check=True)


def test_hz_tools_reach_the_model_and_never_read_outside_the_repository(repo: Path) -> None:
    _commit(repo)
    text = contract_text().replace("  scope: personal\n", "  scope: personal\n" + TOOLS)
    adopt(text, now=MONDAY)
    offered: list[list[str]] = []
    returns: list[tuple[str, str]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append(sorted(t.name for t in info.function_tools))
        returns[:] = [
            (part.tool_name, str(part.content))
            for message in messages
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, ToolReturnPart)
        ]
        if len(returns) < len(CALLS):
            name, args = CALLS[len(returns)]
            return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=f"call-{len(returns)}")])
        drafts = [{"output": "note", "facet": f, "text": returns[1][1].strip()} for f in ("summary", "risks")]
        return ModelResponse(parts=[ToolCallPart("final_result", {"kind": "draft", "report": "r", "drafts": drafts})])

    runner = ModelRunner(FunctionModel(model), Price(input=2.0, output=10.0, cached=0.2))
    report = tick(root=repo, now=MONDAY, runner=runner)

    assert [(e["action"], e["disposition"]) for e in report.woken] == [("started", "drafted")]
    assert offered[0] == ["hz_file_text_read", "hz_git_log_read"]  # feed.item.list has no implementation yet
    log = returns[0][1].splitlines()
    assert len(log) == 1 and log[0].endswith("\tplan: ship on Thursday"), returns[0]
    assert returns[1:] == [
        ("hz_file_text_read", "Ship the checkout rewrite on Thursday.\n"),
        ("hz_file_text_read", "error: ../secret.txt is outside the repository"),
        ("hz_file_text_read", "error: leak.txt is outside the repository"),
        ("hz_file_text_read", "error: .git/config is inside .git, which tools do not read"),
        ("hz_git_log_read", "error: /etc is outside the repository"),
        ("hz_file_text_read", "error: .GIT/config is inside .git, which tools do not read"),
        ("hz_file_text_read", "error: pipe is not a regular file"),
    ]
    placed = (repo / "notes" / "2026-W44.md").read_text()
    assert "Ship the checkout rewrite on Thursday." in placed
    assert "1234" not in placed
