"""Two turns drafting one asset in the same minute (issue 24, finding 1): each draft has its own key and
its own `draft.placed`, the later supersedes the earlier, and approving the later unedited is 0 % changed
and asks the model for nothing. The model is the real `openai` client against the loopback fake."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from hz.tick import direct
from hz.tick.daemon import tick
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import DRAFT, configure
from tests.turn.agents import adopt, contract_text, home

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
ASSET = "file:notes/2026-W44.md"


def spine(agent: str) -> list[Any]:
    return read_spine(home() / "heinzel" / agent / SPINE).events


def statuses(agent: str) -> dict[str, str]:
    with Store.from_environ(os.environ) as store:
        return {str(d["key"]): str(d["status"]) for d in store.index.drafts(status=None, agent=agent)}


def test_a_second_draft_in_the_same_minute_is_its_own_draft_and_approving_it_unedited_learns_nothing(
    repo: Path, hz: Any
) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        agent = adopt(contract_text(), now=MONDAY)
        tick(root=repo, now=MONDAY)  # the created turn drafts at 09:00
        server.outcome = {**DRAFT, "drafts": [{**d, "text": "second take"} for d in DRAFT["drafts"]]}
        woken = direct.ask("weekly-note", "", after=False, request_id="rq-1", root=repo, environ=os.environ,
                           now=MONDAY + timedelta(seconds=30))  # fmt: skip
        assert [(e["action"], e["disposition"]) for e in woken.ran] == [("started", "drafted")]
        first, second = (f"{agent}@v1@2026-10-26T09:00{s}Z@{ASSET}" for s in ("", ":01"))
        assert [e.data["key"] for e in spine(agent) if e.kind == "draft.placed"] == [first, second]
        assert statuses(agent) == {first: "superseded", second: "pending"}
        assert [d["key"] for d in json.loads(hz("drafts", "--json").out)] == [second]

        asked = len(server.requests)
        approved = hz("approve", second)
        assert approved.exit_code == 0, approved.err
        learned = tick(root=repo, now=MONDAY + timedelta(minutes=1))
        assert [(e["action"], e["disposition"]) for e in learned.woken] == [("started", "skipped")]
        observed = next(e for e in spine(agent) if e.kind == "approval.observed")
        assert (observed.data["key"], observed.data["share_changed"]) == (second, 0.0)
        assert [e for e in spine(agent) if e.kind == "lesson.recorded"] == []
        assert len(server.requests) == asked  # no model asked for lessons from edits nobody made


def test_a_retry_in_the_same_minute_as_its_parents_draft_is_placed_and_approvable(repo: Path, hz: Any) -> None:
    with FakeOpenAI(outcome=DRAFT, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0")
        agent = adopt(contract_text(), now=MONDAY)
        tick(root=repo, now=MONDAY)
        retried = direct.retry("weekly-note", "shorter", request_id="rq-2", root=repo, environ=os.environ,
                               now=MONDAY + timedelta(seconds=20))  # fmt: skip
        assert [(e["action"], e["disposition"]) for e in retried.ran] == [("started", "drafted")]
        key = f"{agent}@v1@2026-10-26T09:00:01Z@{ASSET}"
        assert [d["key"] for d in json.loads(hz("drafts", "--json").out)] == [key]
        approved = hz("approve", key)
        assert approved.exit_code == 0, approved.err
        assert (repo / "notes/2026-W44.md").read_text().startswith("## summary")
