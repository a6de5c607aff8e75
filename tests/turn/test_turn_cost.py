"""A turn's cost is every request it paid for, across a wait, a crash and its resumes (issue 24, finding 4):
the ledger holds each request, and the spine, `hz heinzel show` and its `--json` say the sum."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.session.spine import SPINE, read_spine
from hz.tick import direct
from hz.tick.daemon import tick
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, configure
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
QUESTION = {"kind": "question", "report": "asked which week", "question": "Which week should it cover?"}
CALL = 0.001  # 100 output tokens at 10 USD per million


def finished(agent: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in read_spine(home() / "heinzel" / agent / SPINE).events if e.kind == "turn.finished"]


def shown_usd(hz: Any) -> list[float]:
    return [t["usd"] for t in json.loads(hz("heinzel", "show", "weekly-note", "--json").out)["timeline"]]


def test_a_question_turn_costs_both_of_its_model_calls(repo: Path, hz: Any) -> None:
    with FakeOpenAI(outcome=QUESTION, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        agent = adopt(contract_text(), now=MONDAY)
        assert [e["disposition"] for e in tick(root=repo, now=MONDAY).woken] == ["waiting"]
        server.outcome = DRAFT
        answered = direct.ask("weekly-note", "this week", after=False, request_id="rq-1", root=repo,
                              environ=os.environ, now=MONDAY + timedelta(minutes=5))  # fmt: skip
        assert [(e["action"], e["disposition"], e["usd"]) for e in answered.ran] == [("resumed", "drafted", 2 * CALL)]
        assert [(f["disposition"], f["usd"]) for f in finished(agent)] == [("drafted", 2 * CALL)]
        assert shown_usd(hz) == [2 * CALL]
        assert len(server.requests) == 2


def test_a_turn_abandoned_after_paid_resumes_costs_what_they_paid(repo: Path, hz: Any) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0\nmax_resumes = 1")
        agent = adopt(contract_text(), now=MONDAY)
        argv = [sys.executable, "-m", "hz", "tick", "--now", "2026-10-26T09:00Z"]
        for _ in range(2):  # paid, then killed before the reply was recorded; twice
            died = subprocess.run(argv, cwd=repo, env={**os.environ, "HZ_CRASH_AT": "think.after"},
                                  capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
            assert died.returncode == -signal.SIGKILL, died.stdout + died.stderr
        ended = tick(root=repo, now=MONDAY + timedelta(minutes=1))
        assert [(e["disposition"], e.get("reason"), e["usd"]) for e in ended.woken] == [
            ("abandoned", "max-resumes", 2 * CALL)
        ]
        assert [f["usd"] for f in finished(agent)] == [2 * CALL]
        assert shown_usd(hz) == [2 * CALL]
        assert len(server.requests) == 2
