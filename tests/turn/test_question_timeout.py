"""A question nobody answers (issue 24, finding 6): `hz heinzel show` says how to answer it and until when
it waits; once that time passes the question is settled and the agent no longer waits on it."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.session.store import Store
from hz.tick.daemon import tick
from tests.fakes.model_endpoint import NOTHING
from tests.fakes.openai_server import FakeOpenAI
from tests.spend.test_caps_hold import configure
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
QUESTION = {"kind": "question", "report": "asked which week", "question": "Which week should it cover?"}


def test_a_question_shows_how_to_answer_and_a_timed_out_one_settles_the_agent(repo: Path, hz: Any) -> None:
    with FakeOpenAI(outcome=QUESTION, completion_tokens=100) as server:
        configure(server, "max_usd = 1.0\nmax_wait_days = 2")
        agent = adopt(contract_text(), now=MONDAY)
        assert [e["disposition"] for e in tick(root=repo, now=MONDAY).woken] == ["waiting"]
        shown = hz("heinzel", "show", "weekly-note").out
        pending = shown[shown.index("\npending\n") :].split("\n\n")[0]
        assert pending == (
            f"\npending\n  question {agent}@question:{_turn(agent)}: Which week should it cover?\n"
            '    answer with: hz heinzel chat weekly-note "<your answer>"\n'
            "    waits for your answer until 2026-10-28 09:00 UTC"
        )
        server.outcome = NOTHING
        late = tick(root=repo, now=MONDAY + timedelta(days=3))
        assert [(e["action"], e["disposition"]) for e in late.woken] == [("resumed", "skipped")]
        with Store.from_environ(os.environ) as store:
            row = store.index.agent(agent)
        assert row is not None and (row["state"], row["pending_question"]) == ("asleep", None)
        assert "went unanswered" in str(server.requests[-1][2]["messages"])


def _turn(agent: str) -> str:
    with Store.from_environ(os.environ) as store:
        return str(store.index.agent(agent)["last_turn"])  # type: ignore[index]
