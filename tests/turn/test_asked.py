"""A message that waits in the inbox because another process held the agent: the tick answers it, once."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.models.function import FunctionModel

from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.tick import direct
from hz.tick.asked import ASKED, marked
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home
from tests.turn.answers import SameAnswer
from tests.turn.test_waits import DRAFT, wait_in_another_process

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)

HOLDER = """
import sys
from hz.session.store import Store

with Store.from_environ() as store, store.writer(sys.argv[1], timeout=5.0):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


def started(agent: str) -> list[Any]:
    read = read_spine(home() / "heinzel" / agent / SPINE)
    assert read.problems == []
    return [e for e in read.events if e.kind == "turn.started"]


def test_a_message_left_while_another_process_held_the_agent_is_answered_by_the_next_tick_once(
    repo: Path, hz: Any
) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    tick(root=repo, now=MONDAY)  # its created turn
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, agent], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        chatted = hz("heinzel", "chat", "weekly-note", "mention the outage")
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        assert holder.wait(timeout=10) == 0
        assert holder.stdout is not None
        holder.stdout.close()
    queued = (r"weekly-note is held by another hz process \(no turn runs\); your message \((rq-[0-9a-z]+)\) "
              r"waits in its inbox, and the next tick takes it in\n")  # fmt: skip
    found = re.fullmatch(queued, chatted.out)
    assert chatted.exit_code == 0 and found is not None, chatted.out
    request_id = found.group(1)
    assert marked(home() / "heinzel") == [{"agent": agent, "request_id": request_id}]

    answered = tick(root=repo, now=MONDAY + timedelta(hours=1))
    assert [(e["action"], e["disposition"]) for e in answered.woken] == [("started", "drafted")]
    asked = started(agent)[-1]
    assert (asked.data["cause"], asked.key) == ("asked", f"{agent}@{request_id}")
    assert os.listdir(home() / "heinzel" / ASKED) == []

    again = tick(root=repo, now=MONDAY + timedelta(hours=2))
    assert again.woken == []
    assert [e.data["cause"] for e in started(agent)] == ["created", "asked"]


def test_a_chat_that_ran_its_own_turn_leaves_no_marker_for_the_tick(repo: Path, hz: Any) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    tick(root=repo, now=MONDAY)
    chatted = hz("heinzel", "chat", "weekly-note", "mention the outage")
    assert (chatted.exit_code, chatted.out) == (0, "weekly-note: started -> drafted\n")
    assert marked(home() / "heinzel") == []
    assert tick(root=repo, now=MONDAY + timedelta(hours=1)).woken == []
    assert [e.data["cause"] for e in started(agent)] == ["created", "asked"]


def test_a_marker_whose_request_a_turn_already_took_in_starts_nothing(repo: Path) -> None:
    from hz.tick.asked import mark

    agent = adopt(contract_text(), now=MONDAY)
    tick(root=repo, now=MONDAY)
    mark(home() / "heinzel", agent, "rq-gone")  # no such message in the inbox (expired, or never written)
    assert tick(root=repo, now=MONDAY + timedelta(hours=1)).woken == []
    assert marked(home() / "heinzel") == []
    assert [e.data["cause"] for e in started(agent)] == ["created"]


def test_an_answer_left_while_the_agent_was_held_resumes_the_waiting_turn_at_the_next_tick(repo: Path) -> None:
    agent = wait_in_another_process(repo)
    model = SameAnswer(DRAFT)
    runner = ModelRunner(FunctionModel(model), Price(0, 0, 0))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, agent], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        queued = direct.ask("weekly-note", "the week that ends on Friday", after=False, request_id="rq-answer",
                            root=repo, environ=os.environ, now=MONDAY + timedelta(hours=1))  # fmt: skip
    finally:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.close()
        assert holder.wait(timeout=10) == 0
        holder.stdout.close()
    assert (queued.ran, queued.queued) == ([], "rq-answer")

    report = tick(root=repo, now=MONDAY + timedelta(hours=2), runner=runner)
    assert [(e["action"], e["disposition"]) for e in report.woken] == [("resumed", "drafted")]
    events = read_spine(home() / "heinzel" / agent / SPINE).events
    assert [e.data["request_id"] for e in events if e.kind == "question.answered"] == ["rq-answer"]
    assert "Your question was answered: the week that ends on Friday" in model.seen[-1]
    assert [e.kind for e in events].count("turn.started") == 1
    assert tick(root=repo, now=MONDAY + timedelta(hours=3), runner=runner).woken == []
