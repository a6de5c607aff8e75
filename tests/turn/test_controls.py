"""Caps, stop, retry, resume limits, timeouts, and deciding drafts from the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from hz.tick import direct
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)


def spine(agent: str) -> list[Any]:
    read = read_spine(home() / "heinzel" / agent / SPINE)
    assert read.problems == []
    return read.events


def config(text: str) -> None:
    folder = Path(os.environ["HZ_CONFIG_HOME"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def killed_tick(repo: Path, point: str, now: str = "2026-10-30T15:00Z") -> None:
    env = {**os.environ, "HZ_CRASH_AT": point}
    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", now], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr


def priced_runner(calls: list[int]) -> ModelRunner:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        drafts = [{"output": "note", "facet": f, "text": "x"} for f in ("summary", "risks")]
        return ModelResponse(parts=[ToolCallPart("final_result", {"kind": "draft", "report": "r", "drafts": drafts})])

    return ModelRunner(FunctionModel(model), Price(input=3.0, output=15.0, cached=0.3))


def test_a_turn_whose_worst_case_crosses_the_per_turn_cap_is_skipped_without_a_model_call(repo: Path) -> None:
    config("[heinzel]\nmax_usd = 0.05\n")  # 50,000 tokens at 15 USD/M could cost 0.75
    agent = adopt(contract_text(), now=MONDAY)
    calls: list[int] = []
    report = tick(root=repo, now=MONDAY, runner=priced_runner(calls))
    cap = {"name": "turn", "limit_usd": 0.05, "spent_usd": 0.0, "needed_usd": 0.75}
    assert report.woken == [
        {"agent": "weekly-note", "action": "skipped", "reason": "cap", "cause": "created", "cap": cap}
    ]
    assert calls == []
    assert [e.data["reason"] for e in spine(agent) if e.kind == "turn.skipped"] == ["cap"]


def test_the_day_cap_counts_every_agent_and_spend_is_recorded_once(repo: Path) -> None:
    config("[heinzel]\nmax_usd = 5.0\nmax_usd_per_day = 0.7505\n")  # the worst case is 0.75
    first = adopt(contract_text("note-a", target="file:a-{{slot:%G-W%V}}.md"), now=MONDAY)
    calls: list[int] = []
    report = tick(root=repo, now=MONDAY, runner=priced_runner(calls))
    assert [e["disposition"] for e in report.woken] == ["drafted"]
    spent = sum(e.data["usd"] for e in spine(first) if e.kind == "turn.finished")
    assert spent == report.woken[0]["usd"] > 0
    second = adopt(contract_text("note-b", target="file:b-{{slot:%G-W%V}}.md"), now=MONDAY)
    later = tick(root=repo, now=MONDAY + timedelta(hours=1), runner=priced_runner(calls))
    assert [(e["agent"], e["action"], e["reason"], e["cause"]) for e in later.woken] == [
        ("note-b", "skipped", "cap", "created")
    ]
    assert later.woken[0]["cap"]["name"] == "day" and later.woken[0]["cap"]["needed_usd"] == 0.75
    assert len(calls) == 1 and [e.kind for e in spine(second)][-1] == "turn.skipped"


def test_a_turn_resumed_more_than_max_resumes_is_abandoned_with_its_step(repo: Path) -> None:
    config("[heinzel]\nmax_resumes = 1\n")
    agent = adopt(contract_text(), now=MONDAY)
    killed_tick(repo, "think.before", "2026-10-26T09:00Z")
    killed_tick(repo, "think.before", "2026-10-26T09:01Z")
    report = tick(root=repo, now=MONDAY + timedelta(minutes=2))
    assert [(e["action"], e["disposition"], e["reason"]) for e in report.woken] == [
        ("resumed", "abandoned", "max-resumes")
    ]
    finished = next(e for e in spine(agent) if e.kind == "turn.finished")
    assert (finished.data["step"], finished.data["error"]) == ("gather", "stopped at step gather: max-resumes")
    assert tick(root=repo, now=MONDAY + timedelta(minutes=3)).woken == []


def test_stop_finishes_an_open_turn_abandoned(repo: Path, hz: Any) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    killed_tick(repo, "step.gather", "2026-10-26T09:00Z")
    stopped = hz("heinzel", "stop", "weekly-note")
    assert (stopped.exit_code, stopped.out) == (0, "weekly-note: stopped -> abandoned (stopped)\n")
    assert [e.data["reason"] for e in spine(agent) if e.kind == "turn.finished"] == ["stopped"]
    assert tick(root=repo, now=MONDAY + timedelta(minutes=1)).woken == []


def test_retry_forks_after_gather_keeps_both_bodies_and_supersedes_the_draft(repo: Path) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    tick(root=repo, now=MONDAY)
    outcome = direct.retry("weekly-note", "shorter", request_id="rq-1", root=repo, environ=os.environ,
                           now=MONDAY + timedelta(minutes=5))  # fmt: skip
    assert [(e["action"], e["disposition"]) for e in outcome.ran] == [("started", "drafted")]
    events = spine(agent)
    started = [e for e in events if e.kind == "turn.started"]
    assert started[1].data["parent_turn"] == started[0].turn
    assert (started[1].data["from_step"], started[1].data["hint"]) == ("gather", "shorter")
    assert len(list((home() / "heinzel" / agent / "turns").glob("*.jsonl"))) == 2
    with Store.from_environ(os.environ) as store:
        statuses = [d["status"] for d in store.index.drafts(status=None, agent=agent)]
    assert sorted(statuses) == ["pending", "superseded"]


def test_drafts_reject_and_approve_from_the_command_line(repo: Path, hz: Any) -> None:
    adopt(contract_text(), now=MONDAY)
    tick(root=repo, now=MONDAY)
    listed = json.loads(hz("drafts", "--json").out)
    assert [(d["agent"], d["place"], d["version"]) for d in listed] == [("me:weekly-note", "notes/2026-W44.md", 1)]
    rejected = hz("reject", listed[0]["key"])
    assert rejected.out == f"rejected {listed[0]['key']}; notes/2026-W44.md is back to what it was\n"
    assert not (repo / "notes/2026-W44.md").exists()
    assert hz("drafts").out == "no drafts wait for you\n"
    again = hz("reject", listed[0]["key"])
    assert (again.exit_code, again.err) == (
        1,
        f"error: {listed[0]['key']} was decided already\n  hint: hz heinzel show lists what happened to it\n",
    )
    tick(root=repo, now=FRIDAY)
    key = json.loads(hz("drafts", "--json").out)[0]["key"]
    approved = hz("approve", key)
    assert approved.out == "approved notes/2026-W44.md as it stands; the next tick learns from your edits\n"
    learned = tick(root=repo, now=FRIDAY + timedelta(hours=1))
    assert [(e["action"], e["disposition"]) for e in learned.woken] == [("started", "skipped")]


def test_wake_and_chat_run_an_asked_turn_here_when_it_is_asleep(repo: Path, hz: Any) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    tick(root=repo, now=MONDAY)
    woke = hz("heinzel", "wake", "weekly-note")
    assert (woke.exit_code, woke.out) == (0, "weekly-note: started -> drafted\n")
    chatted = hz("heinzel", "chat", "weekly-note", "mention the outage")
    assert (chatted.exit_code, chatted.out) == (0, "weekly-note: started -> drafted\n")
    started = [e for e in spine(agent) if e.kind == "turn.started"]
    assert [e.data["cause"] for e in started] == ["created", "asked", "asked"]
    unknown = hz("heinzel", "wake", "nobody")
    assert (unknown.exit_code, unknown.err) == (
        1,
        "error: no Heinzelmännchen named nobody\n  hint: hz heinzel list shows them all\n",
    )


def test_tick_prints_json(repo: Path, hz: Any) -> None:
    adopt(contract_text(), now=MONDAY)
    printed = hz("tick", "--now", "2026-10-26T09:00Z", "--json")
    report = json.loads(printed.out)
    assert (printed.exit_code, report["now"], report["deferred"], report["pushed"]) == (
        0, "2026-10-26T09:00:00Z", [], False,
    )  # fmt: skip
    assert [(e["agent"], e["action"], e["disposition"]) for e in report["woken"]] == [
        ("weekly-note", "started", "drafted")
    ]
    bad = hz("tick", "--now", "friday")
    assert (bad.exit_code, bad.err) == (
        1,
        "error: --now 'friday' is not an ISO 8601 time\n  hint: e.g. --now 2026-10-30T15:00Z\n",
    )


def test_a_draft_that_cannot_be_placed_fails_its_turn_once(tmp_path: Path) -> None:
    agent = adopt(contract_text(target="gdoc:weekly-note"), now=MONDAY)  # no adapter drafts into gdoc: yet
    report = tick(root=tmp_path, now=MONDAY)
    assert [(e["disposition"], e["reason"]) for e in report.woken] == [("failed", "act")]
    finished = next(e for e in spine(agent) if e.kind == "turn.finished")
    assert finished.data["error"] == "cannot draft into 'gdoc:weekly-note'"
    assert tick(root=tmp_path, now=MONDAY + timedelta(minutes=1)).woken == []
