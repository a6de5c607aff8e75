"""Waiting turns: a stored condition that survives a restart, resumed by the wake that fired it."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.models.function import FunctionModel

from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from hz.tick import direct
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home
from tests.turn.answers import SameAnswer

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
ASKS = """
from datetime import UTC, datetime
from pathlib import Path
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from hz.tick.daemon import tick
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price

def model(messages, info):
    args = {"kind": "question", "report": "asked when to publish", "question": "Which day should it cover?"}
    return ModelResponse(parts=[ToolCallPart("final_result", args)])

runner = ModelRunner(FunctionModel(model), Price(0, 0, 0))
tick(root=Path.cwd(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC), runner=runner)
"""


def events(agent: str) -> list[Any]:
    return read_spine(home() / "heinzel" / agent / SPINE).events


DRAFT = {"kind": "draft", "report": "drafted", "drafts": [{"output": "note", "facet": f, "text": "x"}
                                                          for f in ("summary", "risks")]}  # fmt: skip
QUESTION = {"kind": "question", "report": "asked again", "question": "Which day should it cover?"}


def wait_in_another_process(repo: Path) -> str:
    agent = adopt(contract_text(), now=MONDAY - timedelta(hours=1))
    done = subprocess.run([sys.executable, "-c", ASKS], cwd=repo, env=dict(os.environ),
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert done.returncode == 0
    kinds = [e.kind for e in events(agent)]
    assert kinds[-2:] == ["question.asked", "turn.waiting"]
    with Store.from_environ(os.environ) as store:
        assert store.index.agent(agent)["state"] == "waiting"  # type: ignore[index]
    return agent


def test_a_waiting_turn_survives_a_restart_and_resumes_on_its_answer(repo: Path) -> None:
    agent = wait_in_another_process(repo)
    model = SameAnswer(DRAFT)
    runner = ModelRunner(FunctionModel(model), Price(0, 0, 0))
    assert tick(root=repo, now=MONDAY + timedelta(hours=1), runner=runner).woken == []
    answered = direct.ask("weekly-note", "the week that ends on Friday", after=False, request_id="rq-answer",
                          root=repo, environ=os.environ, now=MONDAY + timedelta(hours=2), runner=runner)  # fmt: skip
    assert [(e["action"], e["disposition"]) for e in answered.ran] == [("resumed", "drafted")]
    spine = events(agent)
    waiting = next(e for e in spine if e.kind == "turn.waiting")
    resumed = next(e for e in spine if e.kind == "turn.resumed")
    assert (resumed.turn, resumed.data["woken_by"]) == (waiting.turn, "answer")
    assert [e.data["request_id"] for e in spine if e.kind == "question.answered"] == ["rq-answer"]
    assert "Your question was answered: the week that ends on Friday" in model.seen[-1]
    assert [e.kind for e in spine].count("turn.started") == 1


def test_until_wins_over_an_answer_that_never_comes(repo: Path) -> None:
    config = Path(os.environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text("[heinzel]\nmax_wait_days = 2\n")
    agent = wait_in_another_process(repo)
    runner = ModelRunner(FunctionModel(SameAnswer(QUESTION)), Price(0, 0, 0))
    assert tick(root=repo, now=MONDAY + timedelta(days=1), runner=runner).woken == []
    report = tick(root=repo, now=MONDAY + timedelta(days=2, minutes=1), runner=runner)
    assert [(e["action"], e["disposition"]) for e in report.woken] == [("resumed", "asked")]
    spine = events(agent)
    assert [e.data["woken_by"] for e in spine if e.kind == "turn.resumed"] == ["timer"]
    assert [e.kind for e in spine].count("question.asked") == 1


def test_hz_heinzel_resume_goes_on_now(repo: Path, hz: Any) -> None:
    agent = wait_in_another_process(repo)
    resumed = hz("heinzel", "resume", "weekly-note")
    assert (resumed.exit_code, resumed.out) == (0, "weekly-note: resumed -> drafted\n")
    assert [e.data["woken_by"] for e in events(agent) if e.kind == "turn.resumed"] == ["asked"]
    again = hz("heinzel", "resume", "weekly-note")
    assert (again.exit_code, again.err) == (
        1,
        "error: weekly-note has no waiting turn\n  hint: hz heinzel wake starts a new one\n",
    )


def test_a_wait_overtaken_by_another_draft_finishes_superseded(repo: Path) -> None:
    agent = wait_in_another_process(repo)
    later = MONDAY + timedelta(hours=1)
    woke = direct.ask("weekly-note", "", after=True, request_id="rq-wake", root=repo, environ=os.environ, now=later)
    assert [(e["action"], e["disposition"]) for e in woke.ran] == [("started", "drafted")]  # never queued behind it
    answered = direct.ask("weekly-note", "Friday", after=False, request_id="rq-late", root=repo,
                          environ=os.environ, now=later + timedelta(minutes=5))  # fmt: skip
    assert [(e["action"], e["disposition"], e.get("reason")) for e in answered.ran] == [
        ("resumed", "abandoned", "superseded")
    ]
    finished = [e.data["reason"] for e in events(agent) if e.kind == "turn.finished" and "reason" in e.data]
    assert finished == ["superseded"]
