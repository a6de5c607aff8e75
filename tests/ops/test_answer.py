"""`answer`: a person's answer to the question an agent's waiting turn asked, refused when it is not that."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from hz.errors import HzError
from hz.ops import Context
from hz.ops.models_actions import AnswerRequest
from hz.ops.turns import answer
from hz.session.store import Store
from tests.turn.test_asked import HOLDER
from tests.turn.test_waits import MONDAY, wait_in_another_process


def test_an_answer_reaches_the_waiting_question_and_a_wrong_key_is_refused(repo: Path) -> None:
    agent = wait_in_another_process(repo)
    with Store.from_environ(os.environ) as store:
        [question] = [str(q["key"]) for q in store.index.questions(agent)]
    ctx = Context(environ=os.environ, root=repo, now=MONDAY + timedelta(hours=1))
    with pytest.raises(HzError) as refused:
        answer(ctx, AnswerRequest(name="weekly-note", answer="Friday's", key="q-other"))
    assert refused.value.render() == (
        f"error: weekly-note has no open question 'q-other'\n  hint: it waits for the answer to {question}"
    )
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, agent], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)  # fmt: skip  # the agent busy elsewhere: the answer waits in its inbox
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        said = answer(ctx, AnswerRequest(name="weekly-note", answer="the week that ends on Friday", key=question))
    finally:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.close()
        assert holder.wait(timeout=10) == 0
        holder.stdout.close()
    assert (said["question"], said["ran"]) == (question, [])
    assert said["said"] == [
        f"weekly-note is held by another hz process (no turn runs); your message ({said['queued']}) "
        "waits in its inbox, and the next tick takes it in"
    ]


def test_what_ran_is_scrubbed_of_the_environments_secrets_like_the_lines_the_cli_prints() -> None:
    from hz.ops.turns import _result
    from hz.tick.direct import Outcome

    environ = {"FORGE_TOKEN": "tok-0123456789abcdef"}
    failed = {"agent": "weekly-note", "action": "started", "disposition": "failed",
              "error": "the forge said 401 for tok-0123456789abcdef"}  # fmt: skip
    result = _result("weekly-note", Outcome([failed]), environ)
    assert result["ran"] == [{**failed, "error": "the forge said 401 for [redacted]"}]
    assert result["said"] == ["weekly-note: started -> failed: the forge said 401 for [redacted]"]


def test_a_message_the_inbox_would_not_read_back_is_refused_before_it_is_written(repo: Path) -> None:
    from hz.ops.models_actions import ChatRequest
    from hz.ops.turns import chat
    from tests.turn.agents import adopt, contract_text

    agent = adopt(contract_text(), now=MONDAY)
    ctx = Context(environ=os.environ, root=repo, now=MONDAY)
    with pytest.raises(HzError) as refused:
        chat(ctx, ChatRequest(name="weekly-note", message="\x01" * 200_000))  # 1.2 MB as JSON
    assert refused.value.render() == (
        "error: the message is 200000 characters long; a message holds at most 131072\n"
        "  hint: say it in fewer words, or put the text in a file the contract reads"
    )
    with Store.from_environ(os.environ) as store:
        assert not (store.agent_dir(agent) / "inbox").exists() or not any((store.agent_dir(agent) / "inbox").iterdir())
