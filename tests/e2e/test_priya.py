"""The specification's worked example, replayed: Priya's weekly report, with a test model.

A personal contract drafting `reports/weekly.md` in Priya's repository from a tracker export
(`file:tracker.json`). The think step runs through the real model runner with pydantic-ai's
FunctionModel; the tick, the engine, the spine, the index and the drafts are all real.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, SystemPromptPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.commands.approve import approve_command
from hz.commands.heinzel_show import show_command
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from hz.spend import money
from hz.tick import direct
from hz.tick.daemon import tick

PRICE = Price(input=2.0, output=10.0, cached=0.2)
MON = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
FRI = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
MON2 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
TUE2 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
FRI2 = datetime(2026, 11, 6, 15, 0, tzinfo=UTC)
FRI3 = datetime(2026, 11, 13, 15, 0, tzinfo=UTC)

CONTRACT = """---
name: weekly-report
kind: responsibility
description: This week's section of the Checkout weekly report, from the tracker export.
hz:
  schema: 1
  title: Checkout weekly report
  owner: "@priya"
  scope: personal
  schedule: "0 15 * * FRI"
  inputs:
    tracker:
      source: "file:tracker.json"
  outputs:
    report:
      target: "file:reports/weekly.md"
      facets: [summary, risks]
---

# Checkout weekly report

### Goal

This week's section of the weekly report is drafted every Friday at three.

### Requires

- `tracker`: the tracker export of the team's issues.
{extra_requires}
### Maintains

- `report`: the week's section.

#### summary

Material: what shipped this week.

#### risks

Material: what may slip.

### Done when

- [ ] every shipped issue is in the summary
"""
WIDER = CONTRACT.replace(
    '    tracker:\n      source: "file:tracker.json"\n',
    '    tracker:\n      source: "file:tracker.json"\n    incidents:\n      source: "file:incidents.md"\n',
)


class Model:
    """The test model: what it answers depends on what the turn hands it, and it remembers what it saw."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.seen: list[dict[str, Any]] = []
        self.steer_next = False

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        system = "\n".join(str(getattr(m, "instructions", None) or "") for m in messages)
        system += "\n".join(p.content for m in messages for p in m.parts if isinstance(p, SystemPromptPart))
        users = [
            p.content for m in messages for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)
        ]
        text = "\n".join(users)
        self.seen.append({"system": system, "user": text})
        if '<input name="approval"' in text:
            return _answer({"kind": "lessons", "report": "learned from Priya's edits", "lessons": [
                {"sentence": "questions go first", "hunks": ["@@ -1 +1 @@"]},
                {"sentence": "say service, not repo", "hunks": ["@@ -3 +3 @@"]},
            ]})  # fmt: skip
        if "also mention incidents" in text:
            amendment = {"text": WIDER.format(extra_requires="- `incidents`: the on-call incidents.\n"),
                         "reason": "Priya asked to mention incidents from on-call."}  # fmt: skip
            return _answer({"kind": "amendment", "report": "proposed reading incidents", "amendment": amendment})
        if self.steer_next:
            self.steer_next = False
            _from_another_process(self.repo, "chat", "weekly-report", "keep it under ten lines")
            _from_another_process(self.repo, "wake", "weekly-report")
            return _answer({"kind": "draft", "report": "half a draft", "drafts": [_facet("summary", "x")]})
        return _answer({"kind": "draft", "report": "drafted this week", "drafts": [_facet("summary", "Shipped CHK-1."),
                                                                               _facet("risks", "None.")]})  # fmt: skip


def _facet(name: str, text: str) -> dict[str, str]:
    return {"output": "report", "facet": name, "text": text}


def _answer(args: dict[str, Any]) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart("final_result", args)])


def _from_another_process(repo: Path, *argv: str) -> None:
    """`hz heinzel chat|wake` as the user runs it, while this turn holds the spine's lock."""
    done = subprocess.run(
        [sys.executable, "-m", "hz", "heinzel", *argv],
        cwd=repo, env=dict(os.environ), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "is awake; your message (rq-" in done.stdout


def events(agent: str) -> list[Any]:
    home = Path(os.environ["HZ_HOME"])
    spine = read_spine(home / "heinzel" / agent / SPINE)
    assert spine.problems == []
    return spine.events


@pytest.fixture
def priya(repo: Path, hz: Any) -> tuple[str, Model, ModelRunner]:
    (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1 one-click pay", "url": "https://t.test/1"}]))
    (repo / "contract.prose.md").write_text(CONTRACT.format(extra_requires=""))
    assert hz("heinzel", "new", "weekly-report", "--from", "contract.prose.md").exit_code == 0
    assert approve_command(io.StringIO(), "weekly-report", environ=os.environ, now=MON) == 0
    with Store.from_environ(os.environ) as store:
        agent = str(store.index.agent("weekly-report")["id"])  # type: ignore[index]
    model = Model(repo)
    return agent, model, ModelRunner(FunctionModel(model), PRICE)


def test_priyas_weekly_report(repo: Path, hz: Any, priya: tuple[str, Model, ModelRunner]) -> None:
    agent, model, runner = priya
    report = repo / "reports/weekly.md"

    # Mon: the created turn drafts once, as of now.
    first = tick(root=repo, now=MON, runner=runner)
    assert [(e["action"], e["disposition"]) for e in first.woken] == [("started", "drafted")]

    # Fri 15:00: the schedule slot, one model turn, a draft under its tag; the cost is recorded.
    friday = tick(root=repo, now=FRI, runner=runner)
    assert [(e["action"], e["disposition"]) for e in friday.woken] == [("started", "drafted")]
    key = f"{agent}@v1@2026-10-30T15:00Z@file:reports/weekly.md"
    lines = report.read_text().splitlines()
    assert lines[0] == f"🧝 DRAFT (weekly-report v1): edit, then delete this line to approve · {key}"
    assert lines[1:] == ["## summary", "", "Shipped CHK-1.", "", "## risks", "", "None."]
    assert friday.woken[0]["usd"] > 0
    drafts = hz("drafts", "--json")
    assert [d["key"] for d in json.loads(drafts.out)] == [key]

    # Mon: Priya edits and deletes the tag line; the approval turn records two lessons.
    report.write_text("## risks\n\nNone.\n\n## summary\n\nShipped the one-click pay epic.\n")
    learned = tick(root=repo, now=MON2, runner=runner)
    assert [(e["action"], e["disposition"]) for e in learned.woken] == [("started", "learned")]
    spine = events(agent)
    approval = next(e for e in spine if e.kind == "approval.observed")
    assert (approval.data["key"], approval.data["decision"]) == (key, "approved")
    assert 0 < approval.data["share_changed"] < 1
    assert [e.data["sentence"] for e in spine if e.kind == "lesson.recorded"] == [
        "questions go first",
        "say service, not repo",
    ]

    # Tue: asked in chat for incidents; the agent's amendment widens, so it is refused (HZC050) ...
    asked = direct.ask("weekly-report", "also mention incidents", after=False, request_id="rq-tue",
                       root=repo, environ=os.environ, now=TUE2, runner=runner)  # fmt: skip
    assert [(e["action"], e["disposition"]) for e in asked.ran] == [("started", "proposed")]
    refused = [e for e in events(agent) if e.kind == "amendment.refused"]
    assert [e.data["widens"] for e in refused] == [["hz.inputs.incidents"]]
    # ... and the same text from Priya is accepted; hz approve makes it v2.
    (repo / "wider.prose.md").write_text(WIDER.format(extra_requires="- `incidents`: the on-call incidents.\n"))
    (repo / "incidents.md").write_text("- 2026-11-04 checkout 502s for 12 minutes\n")
    assert hz("heinzel", "amend", "weekly-report", "--from", "wider.prose.md").exit_code == 0
    out = io.StringIO()
    assert approve_command(out, "weekly-report", environ=os.environ, now=TUE2) == 0
    assert out.getvalue().startswith("me:weekly-report is at v2 now")

    # Fri: the draft records v2 and the model saw both lessons.
    v2 = tick(root=repo, now=FRI2, runner=runner)
    assert [(e["action"], e["disposition"]) for e in v2.woken] == [("started", "drafted")]
    assert report.read_text().splitlines()[0].startswith("🧝 DRAFT (weekly-report v2)")
    assert "- questions go first\n- say service, not repo" in model.seen[-1]["system"]
    assert "2026-11-04 checkout 502s" in model.seen[-1]["user"]

    # A later Friday: Priya chats during think; the model sees it before its next request. A wake
    # asked while it is awake becomes one follow-up turn.
    model.steer_next = True
    calls = len(model.seen)
    later = tick(root=repo, now=FRI3, runner=runner)
    assert [(e["action"], e["disposition"]) for e in later.woken] == [("started", "drafted"), ("started", "drafted")]
    assert "keep it under ten lines" not in model.seen[calls]["user"]
    assert "keep it under ten lines" in model.seen[calls + 1]["user"]
    spine = events(agent)
    assert [e.kind for e in spine].count("turn.steered") == 1
    assert [e.data["cause"] for e in spine if e.kind == "turn.requested"] == ["asked"]
    assert [e.data["cause"] for e in spine if e.kind == "turn.started"][-2:] == ["schedule", "asked"]

    # Any time: the timeline with causes, dispositions and cost rolled up by cause.
    shown = io.StringIO()
    assert show_command(shown, "weekly-report", json_output=False, environ=os.environ, now=FRI3) == 0
    text = shown.getvalue()
    month = sum(e.data.get("usd", 0.0) for e in spine if e.kind == "turn.finished" and e.ts.startswith("2026-11"))
    assert "USD this month: " in text and f"{money.usd(month)} USD this month" in text  # sub-cent keeps digits
    assert "  schedule  drafted" in text and "  approval  learned" in text and "  asked  proposed" in text


# --- the worked example through the crashes, with the loopback model (issue 24) ---------------------------

SHIPPED = [{"output": "report", "facet": "summary", "text": "Shipped CHK-1."},
           {"output": "report", "facet": "risks", "text": "None."}]  # fmt: skip
DRAFTED = {"kind": "draft", "report": "drafted this week", "drafts": SHIPPED}
SHORTER = {"kind": "draft", "report": "a shorter take", "drafts": [{**d, "text": "CHK-1."} for d in SHIPPED]}
LEARNED = {"kind": "lessons", "report": "learned from Priya's edits",
           "lessons": [{"sentence": "risks go above the summary", "hunks": ["@@ -1 +1 @@"]}]}  # fmt: skip


def _hz_tick(repo: Path, now: datetime, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"HZ_CRASH_AT": crash} if crash else {})}
    argv = [sys.executable, "-m", "hz", "tick", "--now", now.strftime("%Y-%m-%dT%H:%MZ")]
    return subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("point", ["draft.placed", "effect.performed"])
def test_priyas_week_through_a_crash_a_late_tick_an_approval_and_a_same_minute_retry(
    repo: Path, hz: Any, point: str
) -> None:
    from datetime import timedelta

    from tests.fakes.openai_server import ScriptedOpenAI
    from tests.spend.test_caps_hold import configure

    (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1 one-click pay", "url": "https://t.test/1"}]))
    schedule = '  schedule: "0 15 * * FRI"\n'
    text = CONTRACT.format(extra_requires="").replace(schedule, schedule + "  render_on_schedule: if-moved\n")
    (repo / "contract.prose.md").write_text(text)
    with ScriptedOpenAI([DRAFTED, SHORTER, DRAFTED, LEARNED], completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        assert hz("heinzel", "new", "weekly-report", "--from", "contract.prose.md").exit_code == 0
        assert approve_command(io.StringIO(), "weekly-report", environ=os.environ, now=MON) == 0
        with Store.from_environ(os.environ) as store:
            agent = str(store.index.agent("weekly-report")["id"])  # type: ignore[index]
        asset = "file:reports/weekly.md"

        # Mon 09:00 the first draft; a retry in the same minute is a draft of its own, and approvable
        assert [e["disposition"] for e in tick(root=repo, now=MON).woken] == ["drafted"]
        retried = direct.retry("weekly-report", "shorter", request_id="rq-mon", root=repo, environ=os.environ,
                               now=MON + timedelta(seconds=30))  # fmt: skip
        assert [e["disposition"] for e in retried.ran] == ["drafted"]
        retry_key = f"{agent}@v1@2026-10-26T09:00:01Z@{asset}"
        assert [d["key"] for d in json.loads(hz("drafts", "--json").out)] == [retry_key]
        assert hz("approve", retry_key).exit_code == 0
        unedited = tick(root=repo, now=MON + timedelta(minutes=5))  # approved as placed: nothing to learn
        assert [(e["action"], e["disposition"]) for e in unedited.woken] == [("started", "skipped")]
        assert len(server.requests) == 2

        # Fri 15:00 (the tracker moved this week) the lid closes while the draft is placed; the next tick
        # comes 38 minutes later
        (repo / "tracker.json").write_text(json.dumps([{"title": "CHK-1 one-click pay"}, {"title": "CHK-2 refunds"}]))
        died = _hz_tick(repo, FRI, crash=point)
        assert died.returncode == -signal.SIGKILL, died.stdout + died.stderr
        late = tick(root=repo, now=FRI + timedelta(minutes=38))
        assert [(e["action"], e["disposition"], e["usd"]) for e in late.woken] == [("resumed", "drafted", 0.001)]
        friday_key = f"{agent}@v1@2026-10-30T15:00Z@{asset}"
        assert [d["key"] for d in json.loads(hz("drafts", "--json").out)] == [friday_key]
        assert [e.data["key"] for e in events(agent) if e.kind == "draft.placed"].count(friday_key) == 1
        assert len(server.requests) == 3  # the resume spent nothing

        # Mon: Priya edits Friday's draft and deletes its tag; the approval turn learns
        (repo / "reports/weekly.md").write_text("## risks\n\nNone.\n\n## summary\n\nShipped the one-click pay epic.\n")
        learned = tick(root=repo, now=MON2)
        assert [(e["action"], e["disposition"]) for e in learned.woken] == [("started", "learned")]

        # the next Friday nothing moved since the last draft: one line, no model call, after the approval
        skipped = tick(root=repo, now=FRI2)
        assert [(e["action"], e["reason"]) for e in skipped.woken] == [("skipped", "nothing-moved")]
        assert len(server.requests) == 4
