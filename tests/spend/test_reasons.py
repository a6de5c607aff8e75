"""Reasons in plain sight: the tick's line and `hz heinzel show` name the cap, its limit and the estimate;
amounts below a cent keep their digits; a cap-skipped created turn runs once the cap allows; a skipped
request is never run later."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.commands.tick import render_report
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.tick import direct
from hz.tick.daemon import tick
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def config(text: str) -> None:
    folder = Path(os.environ["HZ_CONFIG_HOME"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def priced(calls: list[int]) -> ModelRunner:
    """50,000 tokens at 15 USD per million could cost 0.75; a turn really costs well under a cent."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        drafts = [{"output": "note", "facet": f, "text": "x"} for f in ("summary", "risks")]
        return ModelResponse(parts=[ToolCallPart("final_result", {"kind": "draft", "report": "r", "drafts": drafts})])

    return ModelRunner(FunctionModel(model), Price(input=3.0, output=15.0, cached=0.3))


def events(agent: str) -> list[Any]:
    return read_spine(home() / "heinzel" / agent / SPINE).events


def test_the_tick_line_and_show_name_the_cap_its_limit_and_the_estimate(repo: Path, hz: Any) -> None:
    config("[heinzel]\nmax_usd_per_day = 0.5\n")
    adopt(contract_text(), now=MONDAY)
    report = tick(root=repo, now=MONDAY, runner=priced([]))
    assert render_report(report) == [
        "weekly-note: skipped -> cap: day 0.50 USD, 0.00 spent, this turn needs up to 0.75"
    ]
    shown = hz("heinzel", "show", "weekly-note").out
    assert "  2026-10-26 09:00  created  skipped (cap: day 0.50 USD, 0.00 spent, this turn needs up to 0.75)" in shown


def test_amounts_below_a_cent_keep_their_digits_in_the_line_and_in_show(repo: Path, hz: Any) -> None:
    adopt(contract_text(), now=MONDAY)
    report = tick(root=repo, now=MONDAY, runner=priced([]))
    usd = report.woken[0]["usd"]
    assert 0 < usd < 0.005
    (line,) = render_report(report)
    assert line.endswith(f"drafted {usd:.2g} USD") and "0.00 USD" not in line
    shown = hz("heinzel", "show", "weekly-note").out
    assert f"drafted  {usd:.2g} USD" in shown and "0.00 USD" not in shown.split("\ncost\n")[0]


def test_a_created_turn_skipped_for_the_cap_runs_once_the_cap_allows(repo: Path) -> None:
    config("[heinzel]\nmax_usd = 0.05\n")
    agent = adopt(contract_text(), now=MONDAY)
    calls: list[int] = []
    assert [e["reason"] for e in tick(root=repo, now=MONDAY, runner=priced(calls)).woken] == ["cap"]
    assert [e["reason"] for e in tick(root=repo, now=MONDAY + timedelta(hours=1), runner=priced(calls)).woken] == [
        "cap"
    ]
    assert [e.kind for e in events(agent)].count("turn.skipped") == 1  # told once a day, not every tick
    config("[heinzel]\nmax_usd = 5.0\n")
    later = tick(root=repo, now=MONDAY + timedelta(hours=2), runner=priced(calls))
    assert [(e["action"], e["disposition"]) for e in later.woken] == [("started", "drafted")]
    assert calls == [1]
    assert tick(root=repo, now=MONDAY + timedelta(hours=3), runner=priced(calls)).woken == []


@pytest.mark.parametrize("after", [False, True])
def test_a_wake_skipped_for_the_cap_never_runs_later_under_its_settled_key(repo: Path, after: bool) -> None:
    agent = adopt(contract_text(), now=MONDAY)
    calls: list[int] = []
    tick(root=repo, now=MONDAY, runner=priced(calls))  # the created turn
    config("[heinzel]\nmax_usd = 0.05\n")
    request = "rq-01jc0000000000000000000001"
    woke = direct.ask("weekly-note", "", after=after, request_id=request, root=repo, environ=os.environ,
                      now=MONDAY + timedelta(hours=1), runner=priced(calls))  # fmt: skip
    assert [(e["action"], e["reason"]) for e in woke.ran] == [("skipped", "cap")]
    config("[heinzel]\nmax_usd = 5.0\n")
    friday = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
    report = tick(root=repo, now=friday, runner=priced(calls))
    assert [(e["action"], e["disposition"]) for e in report.woken] == [("started", "drafted")]  # one draft
    later = [e for e in events(agent) if e.seq > max(s.seq for s in events(agent) if s.kind == "turn.skipped")]
    assert not [e for e in later if request in str(e.data)]  # neither run, steered nor requested again
