"""The derived index: incremental equals rebuilt, catch-up reads only new lines, crashes leave nothing to fix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.session.index import INDEX, Index
from hz.session.spine import SPINE
from hz.session.store import Store

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
A = "hz-01JB0000000000000000000001"
B = "hz-01JB0000000000000000000002"
FP = "sha256:" + "a" * 64
FP2 = "sha256:" + "b" * 64


def _born(store: Store, agent: str, name: str, *, approve: bool = True, due: str | None = None) -> None:
    store.create(agent)
    with store.writer(agent) as w:
        w.append("heinzel.created", {"agent_id": agent, "name": name, "namespace": "me", "origin": "file"}, now=NOW)
        w.append("contract.proposed", {"name": name, "contract_fingerprint": FP, "source_fingerprint": FP,
                                       "assets": [f"doc:{name}"], "inputs": {"prs": ["git:log"]}}, now=NOW)  # fmt: skip
        if approve:
            w.append("contract.approved", {"version": 1, "by": "@priya", "next_due": due}, now=NOW)


def test_states_due_and_costs_come_from_events(tmp_path: Path) -> None:
    store = Store(tmp_path)
    _born(store, A, "weekly-report", due="2026-10-30T15:00:00Z")
    _born(store, B, "release-notes", approve=False)
    index = store.index
    assert [(r["name"], r["state"]) for r in index.agents()] == [
        ("release-notes", "proposed"),
        ("weekly-report", "asleep"),
    ]
    assert [r["id"] for r in index.due(NOW)] == [A]
    assert index.due(NOW - timedelta(seconds=1)) == []
    with store.writer(A) as w:
        w.append(
            "turn.started", {"cause": "schedule", "contract_version": 1, "keys": [f"{A}@slot"]}, turn="t1", now=NOW
        )
        assert index.agent(A)["state"] == "awake"  # type: ignore[index]
        w.append("draft.placed", {"key": "p1", "asset": "doc:weekly-report", "hash": FP, "contract_version": 1},
                 turn="t1", now=NOW)  # fmt: skip
        finished = {"disposition": "drafted", "cause": "schedule", "usd": 0.31, "inputs": {"prs": FP2},
                    "next_due": "2026-11-06T15:00:00Z"}  # fmt: skip
        w.append("turn.finished", finished, turn="t1", now=NOW)
    row = index.agents(today="2026-10-30", artifact="doc:weekly-report")[0]
    assert (row["state"], row["pending_draft"], row["cost_today"], row["next_due"]) == (
        "waiting",
        "p1",
        0.31,
        "2026-11-06T15:00:00Z",
    )
    assert index.agent_lines() == [  # the list's one query: pending items as bits (1 draft, 2 amendment, 4 question)
        ("me", "release-notes", "proposed", 1, None, 0, B),
        ("me", "weekly-report", "waiting", 1, "2026-11-06T15:00:00Z", 1, A),
    ]
    assert index.agent_lines(state="proposed", contract="release-notes", version=1) == [
        ("me", "release-notes", "proposed", 1, None, 0, B)
    ]
    assert index.spent_on("2026-10-30") == {A: 0.31}
    assert index.key_kind(A, f"{A}@slot") == "turn.finished"
    assert index.cost_on("2026-10-30") == 0.31
    assert [(w["input"], w["fingerprint"]) for w in index.watched()] == [("prs", FP2)]
    with store.writer(A) as w:
        w.append("approval.observed", {"key": "p1", "decision": "approved", "approver": "@priya"}, now=NOW)
    assert index.agent("weekly-report")["state"] == "asleep"  # type: ignore[index]
    store.close()


def test_a_deleted_index_is_rebuilt_to_the_same_rows(tmp_path: Path) -> None:
    store = Store(tmp_path)
    _born(store, A, "weekly-report", due="2026-10-30T15:00:00Z")
    before = store.index.dump()
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp_path / INDEX}{suffix}").unlink(missing_ok=True)
    with Index.open(tmp_path) as index:
        index.refresh(full=True)
        assert index.dump() == before


def test_catching_up_reads_only_the_new_lines(tmp_path: Path) -> None:
    store = Store(tmp_path)
    _born(store, A, "weekly-report")
    size = (tmp_path / A / SPINE).stat().st_size
    store.close()
    # another process appends without this index seeing it
    script = (
        "import sys; from pathlib import Path; from hz.session.spine import SpineWriter\n"
        "with SpineWriter.open(Path(sys.argv[1])) as w:\n"
        "    w.append('usage', {'kind': 'summary', 'usd': 0.5})\n"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path / A)], check=True)
    assert (tmp_path / ".pending" / A).exists()  # that writer left its mark for the index
    with Index.open(tmp_path, refresh=False) as index:
        assert index.spine_state(A)["size"] == size  # type: ignore[index]
        assert index.refresh() == 1  # exactly one new event read, found through the mark
        assert index.spine_state(A)["last_seq"] == 4  # type: ignore[index]
        assert not (tmp_path / ".pending" / A).exists()
        assert index.refresh(full=True) == 0


def test_a_hand_edited_spine_is_reported_in_the_index(tmp_path: Path) -> None:
    store = Store(tmp_path)
    _born(store, A, "weekly-report")
    store.close()
    lines = (tmp_path / A / SPINE).read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"doc:weekly-report", b"doc:something-else")
    (tmp_path / A / SPINE).write_bytes(b"\n".join(lines))
    with Index.open(tmp_path) as index:
        index.rebuild()
        assert index.spine_state(A)["problem"] == "seq 2: the line was changed after it was written"  # type: ignore[index]
        assert index.agent(A)["contract_version"] is None  # type: ignore[index]


_CRASH = """
import os, signal, sys
from pathlib import Path
from hz.session.store import Store
store = Store(Path(sys.argv[1]))
with store.writer(sys.argv[2]) as w:
    w.append("usage", {"kind": "summary", "usd": 0.25})
    # die after the spine line is durable, before the index hears of the next one
    w.listeners.clear()
    w.append("usage", {"kind": "lesson", "usd": 0.5})
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_writer_killed_between_spine_and_index_leaves_nothing_to_repair(tmp_path: Path) -> None:
    store = Store(tmp_path)
    _born(store, A, "weekly-report")
    store.close()
    proc = subprocess.run([sys.executable, "-c", _CRASH, str(tmp_path), A], check=False)
    assert proc.returncode == -signal.SIGKILL
    with Index.open(tmp_path) as index:  # the dirty mark makes opening catch up
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        assert index.cost_on(day) == 0.75
        assert not (tmp_path / ".pending" / A).exists()
        incremental = index.dump()
        index.rebuild()
        assert index.dump() == incremental


# --- the property: the index maintained line by line equals the index rebuilt from the spines -------

TURNS = ["t1", "t2", "t3"]
KEYS = ["k1", "k2", "k3"]
_turn = st.sampled_from(TURNS)
_key = st.sampled_from(KEYS)
_usd = st.sampled_from([0.0, 0.1, 0.25])
_due = st.sampled_from([None, "2026-10-30T15:00:00Z", "2026-11-06T15:00:00Z"])
_request = st.sampled_from(["rq-1", "rq-2", "retry:t1:rq-2"])
_CAP = {"name": "day", "limit_usd": 1.0, "spent_usd": 0.9, "needed_usd": 0.2}

Event = tuple[str, dict[str, Any], str | None, str | None]
Strategy = st.SearchStrategy[Event]


def ev(
    kind: str | st.SearchStrategy[str], t: bool = False, k: bool = False, /, **data: Any
) -> st.SearchStrategy[Event]:
    """Events of `kind` whose payload fields draw from `data`; `t`/`k`: with a turn id / an envelope key."""
    fields = {name: v if isinstance(v, st.SearchStrategy) else st.just(v) for name, v in data.items()}
    kinds = kind if isinstance(kind, st.SearchStrategy) else st.just(kind)
    return st.tuples(kinds, st.fixed_dictionaries(fields), _turn if t else st.none(), _key if k else st.none())


_fp = st.just(FP2)
EVENTS = [
    ev("contract.approved", version=1, next_due=_due),
    ev("turn.started", True, cause="schedule", contract_version=1, keys=st.lists(_key, max_size=1)),
    ev("turn.step", True, step=st.sampled_from(["gather", "think"]), inputs={"prs": FP2}),
    ev("turn.waiting", True, step="act", until="2026-10-31T12:00:00Z",
       on=st.fixed_dictionaries({"kind": st.just("approval"), "key": _key})),
    ev("turn.resumed", True, woken_by="timer"),
    ev("turn.finished", True, disposition="drafted", cause="schedule", usd=_usd, next_due=_due),
    ev("turn.skipped", True, causes=["schedule"], keys=st.lists(_key, max_size=1), reason="nothing-moved"),
    # what an agent's page reads (hz.session.page_rows): caps and flags, skips, summaries, edits, chat fates
    ev("turn.finished", True, disposition="skipped", cause="asked", reason="cap", flags=st.sampled_from(
        [[], ["no-usage"]]), cap=st.sampled_from([None, _CAP])),
    ev("turn.skipped", causes=["schedule"], keys=[], reason="cap", usd=_usd, cap=_CAP),
    ev("summary.written", True, asset="the notes", wants=st.sampled_from(["short", "long"]), decisions=["a"]),
    ev("context.edit", target=st.sampled_from(TURNS), replacement=st.sampled_from([None, "a turn"])),
    ev("turn.steered", True, request_id=_request, hash=FP),
    ev("turn.requested", True, cause="asked", key=st.builds(lambda r: f"{A}@{r}", _request)),
    ev("turn.started", True, cause="asked", contract_version=1,
       keys=st.lists(st.builds(lambda r: f"{A}@{r}", _request), max_size=2)),
    ev("question.answered", True, key=_key, request_id=_request),
    ev("turn.waiting", True, step="think", until=_due.filter(bool),
       on=st.fixed_dictionaries({"kind": st.just("answer"), "key": _key})),
    ev("effect.started", True, key=_key, effect="place_draft"),
    ev("effect.done", True, key=_key, hash=FP),
    ev("draft.placed", True, key=_key, asset=st.sampled_from(["doc:a", "doc:b"]), hash=FP, contract_version=1),
    ev("approval.observed", key=_key, decision=st.sampled_from(["approved", "rejected"])),
    ev("lesson.recorded", True, lesson_id=_key, sentence="risks first"),
    ev("lesson.dismissed", lesson_id=_key),
    ev("question.asked", True, True, key=_key, question="which board?"),
    ev("question.answered", key=_key),
    ev("amendment.proposed", amendment_id=_key, by=st.sampled_from(["agent", "user"]), base_version=1,
       contract_fingerprint=_fp, source_fingerprint=_fp),
    ev("amendment.refused", amendment_id=_key, widens=["inputs"]),
    ev("contract.amended", version=2, amendment_id=_key, contract_fingerprint=_fp, source_fingerprint=_fp,
       inputs={"board": ["jira:X"]}),
    ev("contract.refreshed", version=st.sampled_from([1, 2]), commit="a" * 40, source_fingerprint=_fp,
       next_due=_due),
    ev("usage", kind="summary", usd=_usd),
    ev(st.sampled_from(["heinzel.paused", "heinzel.unpaused", "heinzel.retired", "heinzel.unretired"])),
    ev("heinzel.renamed", name=st.sampled_from(["alpha", "beta"]), previous="x"),
]  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from([A, B]), st.one_of(EVENTS)), max_size=30))
def test_the_index_kept_line_by_line_equals_the_index_rebuilt(events: list[tuple[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        with Store(root) as store:
            _born(store, A, "alpha", approve=False)
            _born(store, B, "beta", approve=False)
            for agent, (kind, data, turn, key) in events:
                with store.writer(agent) as w:
                    w.append(kind, data, turn=turn, key=key, now=NOW)
            incremental = store.index.dump()
            store.index.rebuild()
            assert store.index.dump() == incremental
        os.unlink(root / INDEX)
        with Index.open(root) as fresh:
            assert fresh.dump() == incremental


@pytest.mark.parametrize("kind", ["turn.waiting"])
def test_waits_are_rows_the_tick_can_ask_for(tmp_path: Path, kind: str) -> None:
    store = Store(tmp_path)
    _born(store, A, "weekly-report")
    with store.writer(A) as w:
        w.append("turn.started", {"cause": "asked", "contract_version": 1}, turn="t1", now=NOW)
        w.append(kind, {"step": "act", "until": "2026-10-30T17:00:00Z", "on": {"kind": "answer", "key": "q1"}},
                 turn="t1", now=NOW)  # fmt: skip
    index = store.index
    assert index.agent(A)["state"] == "waiting"  # type: ignore[index]
    assert index.waits_due(NOW) == []
    assert [(w["turn"], w["on_kind"], w["on_key"]) for w in index.waits_due(NOW + timedelta(hours=2))] == [
        ("t1", "answer", "q1")
    ]
    assert [w["turn"] for w in index.waits_on("answer")] == ["t1"]
    store.close()


_STORE_APPENDER = """
import sys
from pathlib import Path
from hz.session.store import Store
root, agents, count = Path(sys.argv[1]), sys.argv[2].split(","), int(sys.argv[3])
with Store(root) as store:
    for i in range(count):
        agent = agents[i % len(agents)]
        with store.writer(agent, timeout=30) as w:
            w.append("usage", {"kind": "summary", "usd": 0.01})
"""


@pytest.mark.slow
def test_processes_writing_through_their_own_index_connections_agree_with_a_rebuild(tmp_path: Path) -> None:
    store = Store(tmp_path)
    _born(store, A, "alpha")
    _born(store, B, "beta")
    store.close()
    procs = [
        subprocess.Popen([sys.executable, "-c", _STORE_APPENDER, str(tmp_path), agents, "20"])
        for agents in (f"{A},{B}", f"{B},{A}", A)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    with Index.open(tmp_path) as index:
        incremental = index.dump()
        assert [(r["agent"], r["last_seq"]) for r in index.db.execute("SELECT * FROM spines ORDER BY agent")] == [
            (A, 3 + 10 + 10 + 20),
            (B, 3 + 10 + 10),
        ]
        index.rebuild()
        assert index.dump() == incremental
    assert list((tmp_path / ".pending").iterdir()) == []
