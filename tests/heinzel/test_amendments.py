"""Amendments: HZC050 when the agent widens its contract, the same text accepted from the user, v n+1."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.errors import HzError
from hz.heinzel import amendments, lifecycle
from hz.heinzel.turns import propose_from_turn
from hz.heinzel.versions import version_path
from hz.session.envelope import Envelope
from hz.session.spine import SPINE, SpineWriter, read_spine
from hz.session.store import Store
from tests.heinzel.conftest import CONTRACT

NOW = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
WIDER = CONTRACT.replace(
    "      window: 7d\n", '      window: 7d\n    incidents:\n      source: "feed:https://status.example.test/feed"\n'
).replace("- `merged`: what was merged this week.", "- `merged`: what was merged this week.\n- `incidents`: outages.")
NARROWER = CONTRACT.replace("Every Friday afternoon", "Every Friday afternoon, briefly,")


@pytest.fixture
def store() -> Any:
    with Store.from_environ() as store:
        yield store


def _agent(store: Store) -> dict[str, Any]:
    agent_id = lifecycle.create(
        store, CONTRACT, label="weekly-report.prose.md", namespace="me", handle="@priya",
        origin=lifecycle.Origin("file"), now=NOW, approve=True,
    )  # fmt: skip
    return store.index.agent(agent_id)  # type: ignore[return-value]


class _Journal:
    """What a running turn hands to the hook: a directory, its events, and append under its lock."""

    def __init__(self, writer: SpineWriter) -> None:
        self.writer, self.directory = writer, writer.directory
        self._events = read_spine(writer.directory / SPINE).events

    def events(self) -> list[Envelope]:
        return self._events

    def append(self, kind: str, data: dict[str, Any], *, turn: str | None, key: str | None) -> Envelope:
        envelope = self.writer.append(kind, data, turn=turn, key=key, now=NOW)
        self._events.append(envelope)
        return envelope


def test_a_widening_amendment_from_the_agent_is_refused_with_hzc050(store: Store) -> None:
    row = _agent(store)
    with store.writer(row["id"]) as writer:
        proposal = propose_from_turn(_Journal(writer), row["id"], "t1.a", WIDER, "read the incident feed too", "t1")
    assert proposal.widens == ("hz.inputs.incidents",)
    assert proposal.refusal is not None
    assert proposal.refusal.render() == (
        f"{store.agent_dir(row['id'])}/contract/amendments/t1.a.prose.md:15:5  HZC050  hz.inputs.incidents\n"
        "  a Heinzelmännchen may not widen its own contract (hz.inputs.incidents); the amendment is refused\n"
        "  hint: only you can widen it: propose the same text yourself (hz heinzel amend NAME --from FILE)"
    )
    [amendment] = store.index.amendments(row["id"])
    assert (amendment["status"], amendment["by_whom"], json.loads(amendment["widens"])) == (
        "refused", "agent", ["hz.inputs.incidents"]
    )  # fmt: skip
    with pytest.raises(HzError, match=r"amendment t1\.a of weekly-report is refused, not pending"):
        amendments.approve(store, store.index.agent(row["id"]), "t1.a", by="@priya", now=NOW)  # type: ignore[arg-type]
    assert store.index.agent(row["id"])["contract_version"] == 1  # type: ignore[index]


def test_the_same_text_from_the_user_is_accepted_and_approved_as_v2(store: Store, hz: Any, tmp_path: Path) -> None:
    row = _agent(store)
    wider = tmp_path / "wider.prose.md"
    wider.write_text(WIDER, encoding="utf-8")
    store.close()
    proposed = hz("heinzel", "amend", "weekly-report", "--from", str(wider), "--why", "incidents matter")
    assert proposed.exit_code == 0, proposed.err
    amendment_id = proposed.out.split()[1]
    widens = "(widens hz.inputs.incidents)"
    assert proposed.out == f"amendment {amendment_id} of weekly-report proposed {widens}: `hz approve {amendment_id}`\n"
    assert json.loads(hz("heinzel", "list", "--json").out)[0]["state"] == "waiting"
    approved = hz("approve", amendment_id)
    assert approved.out == f"me:weekly-report is at v2 now ({amendment_id} approved)\n"
    listed = json.loads(hz("heinzel", "list", "--json").out)[0]
    assert (listed["state"], listed["contract"]["version"]) == ("asleep", 2)
    assert version_path(store.agent_dir(row["id"]), 2).read_text(encoding="utf-8") == WIDER
    assert version_path(store.agent_dir(row["id"]), 1).read_text(encoding="utf-8") == CONTRACT
    shown = json.loads(hz("heinzel", "show", "weekly-report", "--json").out)
    assert [(v["version"], v["amendment_id"]) for v in shown["versions"]] == [(1, None), (2, amendment_id)]


def test_a_narrowing_amendment_from_the_agent_waits_for_the_user(store: Store) -> None:
    row = _agent(store)
    with store.writer(row["id"]) as writer:
        proposal = propose_from_turn(_Journal(writer), row["id"], "t2.a", NARROWER, "say it briefly", "t2")
    assert (proposal.widens, proposal.refused) == ((), False)
    fresh = store.index.agent(row["id"])
    assert (fresh["state"], fresh["pending_amendment"]) == ("waiting", "t2.a")  # type: ignore[index]
    assert amendments.approve(store, fresh, "t2.a", by="@priya", now=NOW) == 2  # type: ignore[arg-type]


def test_an_amendment_on_an_old_version_is_not_approved_blindly(store: Store) -> None:
    row = _agent(store)
    first = amendments.propose_by_user(store, row, NARROWER, now=NOW)
    second = amendments.propose_by_user(store, row, WIDER, now=NOW)
    amendments.approve(store, store.index.agent(row["id"]), first.amendment_id, by=None, now=NOW)  # type: ignore[arg-type]
    with pytest.raises(HzError) as info:
        amendments.approve(store, store.index.agent(row["id"]), second.amendment_id, by=None, now=NOW)  # type: ignore[arg-type]
    assert info.value.message == (
        f"amendment {second.amendment_id} was written against v1, and weekly-report is at v2 now"
    )
    amendments.decline(store, store.index.agent(row["id"]), second.amendment_id, now=NOW)  # type: ignore[arg-type]
    assert [a["status"] for a in store.index.amendments(row["id"])] == ["approved", "declined"]


def test_approve_by_name_takes_the_one_pending_amendment(store: Store, hz: Any) -> None:
    row = _agent(store)
    proposal = amendments.propose_by_user(store, row, NARROWER, now=NOW)
    store.close()
    result = hz("approve", "weekly-report")
    assert (result.exit_code, result.out) == (0, f"me:weekly-report is at v2 now ({proposal.amendment_id} approved)\n")
    nothing = hz("approve", "me:weekly-report@v1@2026-10-30T15:00@doc")
    assert nothing.exit_code == 1
    assert nothing.err == (
        "error: nothing to approve under 'me:weekly-report@v1@2026-10-30T15:00@doc'\n"
        "  hint: hz heinzel list shows agents and what they wait for\n"
    )
