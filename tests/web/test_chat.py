"""The chat is the session: a message sent from the page while another process holds the agent's spine
(a turn running elsewhere) waits in the inbox for that turn, as `hz heinzel chat` does, and shows in
`hz heinzel show`; what became of each message is read from the spine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from hz.ops.conversation import chat
from hz.session.inbox import Request
from tests.web.conftest import Hz, Served, agent_with_draft


def test_a_message_sent_while_the_spine_is_held_waits_for_the_running_turn(hz: Hz, repo: Path, served: Served) -> None:
    from hz.session.store import Store

    agent = agent_with_draft(hz, repo)
    with httpx.Client(base_url=served.base, follow_redirects=False, timeout=30) as client:
        client.get(served.login.removeprefix(served.base))
        csrf = re.search(r'name="csrf" value="([0-9a-f]{64})"', client.get(f"/heinzel/{agent}").text)
        assert csrf is not None
        with Store.from_environ() as store, store.writer(agent):  # a turn of another process holds the spine
            sent = client.post(f"/heinzel/{agent}/chat", data={"csrf": csrf.group(1), "text": "shorter, please"},
                               headers={"Origin": served.base})  # fmt: skip
        assert (sent.status_code, sent.headers["location"]) == (303, f"/heinzel/{agent}?notice=sent")
        page = client.get(sent.headers["location"]).text
    assert "shorter, please" in page and "waits in the inbox" in page
    (said,) = json.loads(hz("heinzel", "show", "note", "--json").out)["chat"]
    assert (said["text"], said["fate"], said["turn"]) == ("shorter, please", "waiting", None)
    shown = hz("heinzel", "show", "note").out
    assert "  you, " in shown and ": shorter, please\n    -> waits in the inbox\n" in shown


def test_each_message_gets_its_fate_from_the_spine(tmp_path: Path) -> None:
    from hz.session.index import Index
    from hz.session.store import Store

    agent = "hz-01M8V9PKMCXVA9D0KM0JKBD4VX"
    inbox = [Request(f"rq-{n}", f"2026-12-02T10:0{n}:00.000Z", "steer", f"message {n}", "sha256:x") for n in range(5)]
    inbox.append(Request("rq-9", "2026-12-02T10:09:00.000Z", "steer", "", "sha256:x"))  # a bare wake
    fp = "sha256:" + "ab" * 32
    events = [
        ("heinzel.created", None, {"agent_id": agent, "name": "note", "namespace": "me", "origin": "file"}),
        ("turn.started", "t1", {"cause": "schedule", "contract_version": 1, "keys": [f"{agent}@2026-W49"]}),
        ("turn.steered", "t1", {"request_id": "rq-0", "hash": fp}),
        ("turn.requested", "t1", {"cause": "asked", "key": f"{agent}@rq-1"}),
        ("turn.finished", "t1", {"disposition": "drafted", "cause": "schedule", "report": "drafted it"}),
        ("turn.started", "t2", {"cause": "asked", "contract_version": 1, "keys": [f"{agent}@rq-1", f"{agent}@rq-2"]}),
        ("turn.finished", "t2", {"disposition": "asked", "cause": "asked", "report": "which week?"}),
        ("question.answered", "t2", {"key": "q", "request_id": "rq-3"}),
    ]
    expected = [
        ("rq-0", "steered", "t1", "drafted it"),
        ("rq-1", "own-turn", "t2", "which week?"),  # queued first, then the follow-up turn took it
        ("rq-2", "own-turn", "t2", "which week?"),
        ("rq-3", "answer", "t2", "which week?"),
        ("rq-4", "waiting", None, None),
    ]
    with Store(tmp_path) as store:
        store.create(agent)
        with store.writer(agent) as writer:  # each line reaches the index as it is appended
            for kind, turn, data in events:
                writer.append(kind, data, turn=turn)
        found = [(m["request_id"], m["fate"], m["turn"], m["reply"]) for m in chat(store.index, agent, inbox)]
        assert found == expected
        assert chat(store.index, agent, []) == []
    (tmp_path / "index.sqlite").unlink()
    with Index.open(tmp_path) as rebuilt:  # and the same from a rebuild of the index
        assert [(m["request_id"], m["fate"], m["turn"], m["reply"]) for m in chat(rebuilt, agent, inbox)] == expected
