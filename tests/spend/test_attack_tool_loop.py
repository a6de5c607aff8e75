"""Attack: a model that keeps calling tools, one paid request after another in one turn.

The real `openai` client through pydantic-ai against a loopback endpoint that answers every request with
a tool call (never an outcome) and bills honestly: one input token per byte it was sent, and the answer's
full output limit. Each request must reserve; together they stay under the turn's cap.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.runners.base import BudgetExceeded, ToolSpec
from hz.spend.gate import LedgerGate
from hz.spend.ledger import Ledger, Limits
from tests.fakes.model_endpoint import output_limit, utf8
from tests.fakes.openai_server import FakeOpenAI
from tests.runners.conftest import build_request
from tests.runners.test_spend import model_runner

NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PRICE = (2.0, 10.0)
CAP = 0.5


class ToolLoop(FakeOpenAI):
    """Every answer calls `lookup`; the tool's answer is long, so each request sends more than the last."""

    def __init__(self) -> None:
        super().__init__()
        self.billed = 0.0

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        sent = sum(utf8(m.get("content") or "") + utf8(m.get("tool_calls") or "") for m in body["messages"])
        sent += sum(utf8(t) for t in body.get("tools", []))
        limit = output_limit(body) or 4096
        self.billed += (sent * PRICE[0] + limit * PRICE[1]) / 1e6
        call = {"id": f"call_{len(self.requests)}", "type": "function"}
        call["function"] = {"name": "lookup", "arguments": json.dumps({"page": len(self.requests)})}
        return 200, {
            "id": "chatcmpl-loop",
            "object": "chat.completion",
            "created": 1764547200,
            "model": body["model"],
            "choices": [
                {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [call]}}
            ],
            "usage": {"prompt_tokens": sent, "completion_tokens": limit, "total_tokens": sent + limit},
        }


def _lookup(args: dict[str, Any]) -> str:
    return f"page {args.get('page')}: " + "ticket history line\n" * 200


def test_many_tool_calls_in_one_turn_stay_under_the_turn_cap(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path)
    gate = LedgerGate(ledger, agent="a", turn="t1", runner="model", limits=Limits(CAP, 5.0), clock=lambda: NOON)
    tool = ToolSpec(
        "lookup", "Look a page up.", True, _lookup, {"type": "object", "properties": {"page": {"type": "integer"}}}
    )
    with ToolLoop() as server:
        with pytest.raises(BudgetExceeded):
            model_runner("openai", server, price=PRICE).think(
                build_request(max_usd=CAP, max_tokens=10**7, max_turns=200, tools=(tool,), spend=gate)
            )
        assert len(server.requests) > 5  # the loop really spent, request after request
        assert server.billed <= CAP + 1e-9
    assert ledger.spent(agent="a", turn="t1", day="2026-12-01").turn_usd <= CAP + 1e-9
    assert ledger.day_total("2026-12-01") == pytest.approx(server.billed)
