"""Full rebuilds: worker processes give exactly the rows of one process, and a killed rebuild loses nothing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.session.envelope import Envelope, format_line, line_hash
from hz.session.index import INDEX, Index
from hz.session.replay import PARALLEL_FROM, processes_for, spine_rows
from hz.session.schema import SCHEMA_VERSION
from hz.session.spine import SPINE, read_spine

FP = "sha256:" + "a" * 64
FP2 = "sha256:" + "b" * 64
TS = "2026-10-30T15:00:00.000Z"
Event = tuple[str, dict[str, Any], str | None, str | None]


def _life(name: str) -> list[Event]:
    """A spine that visits every table: turns that wait and finish, drafts, lessons, questions, amendments."""
    return [
        ("heinzel.created", {"agent_id": "x", "name": name, "namespace": "me", "origin": "file"}, None, None),
        ("contract.proposed", {"name": name, "contract_fingerprint": FP, "source_fingerprint": FP,
                               "assets": [f"doc:{name}"], "inputs": {"prs": ["git:log"]}}, None, None),
        ("contract.approved", {"version": 1, "next_due": "2026-11-06T15:00:00Z"}, None, None),
        ("turn.started", {"cause": "schedule", "keys": [f"{name}@w1"], "contract_version": 1}, "t1", f"{name}@w1"),
        ("turn.step", {"step": "gather", "inputs": {"prs": FP2}}, "t1", None),
        ("effect.started", {"key": f"{name}@doc", "effect": "place_draft"}, "t1", None),
        ("effect.done", {"key": f"{name}@doc", "hash": FP}, "t1", None),
        ("draft.placed", {"key": f"{name}@doc", "asset": f"doc:{name}", "hash": FP, "contract_version": 1}, "t1",
         None),
        ("turn.waiting", {"step": "act", "until": "2026-11-01T12:00:00Z", "on": {"kind": "approval"}}, "t1", None),
        ("future.kind", {"anything": 1}, None, None),
        ("turn.resumed", {"woken_by": "timer"}, "t1", None),
        ("turn.finished", {"disposition": "drafted", "cause": "schedule", "usd": 0.25,
                           "next_due": "2026-11-13T15:00:00Z", "report": "drafted"}, "t1", None),
        ("approval.observed", {"key": f"{name}@doc", "decision": "approved", "approver": "@priya"}, None, None),
        ("lesson.recorded", {"lesson_id": "l1", "sentence": "risks first", "hunks": []}, "t1", None),
        ("question.asked", {"key": "q1", "question": "which board?"}, "t1", "q1"),
        ("amendment.proposed", {"amendment_id": "a1", "by": "agent", "base_version": 1, "contract_fingerprint": FP2,
                                "source_fingerprint": FP2, "widens": ["inputs"]}, None, None),
        ("usage", {"kind": "summary", "usd": 0.01}, None, None),
        ("turn.skipped", {"causes": ["schedule"], "keys": [f"{name}@w2"], "reason": "nothing-moved"}, "t2", None),
        ("question.answered", {"key": "q1"}, None, None),
        ("lesson.dismissed", {"lesson_id": "l1"}, None, None),
        ("contract.amended", {"version": 2, "amendment_id": "a1", "contract_fingerprint": FP2,
                              "source_fingerprint": FP2, "inputs": {"board": ["jira:X"]}}, None, None),
        ("contract.refreshed", {"version": 2, "commit": "b" * 40, "source_fingerprint": FP,
                                "next_due": "2026-11-14T15:00:00Z"}, None, None),
        ("heinzel.paused", {}, None, None),
        ("summary.written", {"asset": f"doc:{name}", "wants": "a short weekly section"}, None, None),
        ("heinzel.renamed", {"name": f"{name}-2", "previous": name}, None, None),
    ]  # fmt: skip


def _spine_bytes(events: list[Event]) -> bytes:
    prev: str | None = None
    lines = []
    for seq, (kind, data, turn, key) in enumerate(events, start=1):
        line = format_line(Envelope(seq, TS, prev, kind, data, turn, key))
        prev = line_hash(line)
        lines.append(line)
    return b"\n".join(lines) + b"\n"


def _agent(n: int) -> str:
    return f"hz-01JB{n:022d}"


def _write(root: Path, agent: str, data: bytes) -> None:
    (root / agent).mkdir(parents=True, mode=0o700)
    (root / agent / SPINE).write_bytes(data)


def _varied_spines(root: Path, count: int) -> None:
    """Spines of every length, some torn, some broken in the middle, some from before `causes` existed."""
    for n in range(count):
        events = _life(f"agent-{n}")[: 1 + (n * 7) % 24]
        if n % 5 == 1:  # written before turn.started carried `causes`: migrated on read
            old = ("turn.started", "turn.finished")
            events = [(k, {x: v for x, v in d.items() if x != "causes" or k not in old}, t, y) for k, d, t, y in events]
        data = _spine_bytes(events)
        if n % 6 == 2 and len(events) > 4:  # an edited line: the chain breaks there
            data = data.replace(b'"next_due":"2026-11-06T15:00:00Z"', b'"next_due":"2026-11-07T15:00:00Z"')
        if n % 7 == 3:
            data += b'{"v":1,"seq":'  # a torn last line
        _write(root, _agent(n), data)


def _dump(root: Path, processes: int) -> tuple[int, dict[str, list[tuple[Any, ...]]]]:
    with Index.open(root, refresh=False) as index:
        count = index.rebuild(processes=processes)
        return count, index.dump()


_LINUX = pytest.mark.skipif(sys.platform != "linux", reason="worker processes are forked on Linux only")


def in_a_process_of_its_own(request: pytest.FixtureRequest) -> bool:
    """Run this test again in a fresh interpreter when the test process has other threads.

    A pytest-xdist worker always has execnet's thread, and hz never starts rebuild workers beside other
    threads (forking then is unsafe), so these tests would only see the one-process path there.
    True: the test ran (and passed) in its own process; the caller returns."""
    if threading.active_count() == 1:
        return False
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-o", "addopts=-q", request.node.nodeid],
                          cwd=root, env=environ, capture_output=True, text=True, check=False, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return True


@_LINUX
def test_a_rebuild_in_worker_processes_gives_exactly_the_rows_of_one_process(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if in_a_process_of_its_own(request):
        return
    _varied_spines(tmp_path, 30)
    assert threading.active_count() == 1  # else the rebuild would quietly stay in one process
    assert processes_for(30, 3) == 3
    count, alone = _dump(tmp_path, 1)
    assert count == 30
    assert [len(alone[table]) for table in ("agents", "spines", "turns", "keys", "drafts", "waits")] == [
        30, 30, 29, 57, 17, 1]  # fmt: skip
    assert sum(1 for row in alone["spines"] if row[5] is not None) == 4  # the broken ones, named
    assert _dump(tmp_path, 2) == (30, alone)
    assert _dump(tmp_path, 3) == (30, alone)
    assert _dump(tmp_path, 1) == (30, alone)  # and back: a rebuild over a rebuilt index is the same


_NAME = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(_NAME, st.lists(st.integers(0, 23), max_size=30)), min_size=1, max_size=4))
def test_any_spines_give_the_same_rows_with_workers_and_without(spines: list[tuple[str, list[int]]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for n, (name, picks) in enumerate(spines):  # events of a life in any order, any name
            life = _life(name)
            _write(root, _agent(n), _spine_bytes([life[0], *(life[i] for i in picks)]))
        assert _dump(root, 2) == _dump(root, 1)


@_LINUX
def test_workers_are_used_only_for_many_spines_and_never_beside_other_threads(request: pytest.FixtureRequest) -> None:
    if in_a_process_of_its_own(request):
        return
    assert processes_for(PARALLEL_FROM - 1) == 1
    assert processes_for(PARALLEL_FROM) == min(len(os.sched_getaffinity(0)), 4)
    assert processes_for(3, 8) == 3  # never more workers than spines
    assert processes_for(0, 2) == 1
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert processes_for(10_000) == 1
        assert processes_for(10_000, 2) == 1
    finally:
        stop.set()
        thread.join()


def test_an_error_in_a_worker_is_raised_by_the_parent_and_the_index_stays_as_it_was(tmp_path: Path) -> None:
    _varied_spines(tmp_path, 12)
    before = _dump(tmp_path, 1)[1]
    # The last line is confirmed by no later `prev`, so an edit there is read as written; readers check that
    # its fields are there, not their types: a cost that is not a number fails the fold. Whatever a worker
    # fails at, the parent meets it again while folding what never arrived.
    bad = _spine_bytes([("usage", {"kind": "summary", "usd": "a lot"}, None, None)])
    _write(tmp_path, _agent(99), bad)
    for processes in (1, 2):
        with Index.open(tmp_path, refresh=False) as index:
            with pytest.raises(TypeError):
                index.rebuild(processes=processes)
            assert index.dump() == before


_OPEN = """
import sys
from pathlib import Path
from hz.session.index import Index
Index.open(Path(sys.argv[1])).close()
"""
_REINDEX = _OPEN.replace(".close()", ".rebuild()")


def _kill_halfway(root: Path, script: str) -> None:
    """Run a process that rebuilds the index; kill -9 it once rows are being written, before they are committed."""
    wal = root / f"{INDEX}-wal"
    child = subprocess.Popen([sys.executable, "-c", script, str(root)], start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not (wal.exists() and wal.stat().st_size > 0):  # rows beyond the cache spill into the log
            assert child.poll() is None, "the rebuild finished before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.002)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        _wait_for_group_to_end(child.pid)  # its workers notice the parent is gone and end too
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _wait_for_group_to_end(group: int) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        if time.monotonic() > deadline:
            os.killpg(group, signal.SIGKILL)
            raise AssertionError("a worker outlived its killed parent")
        time.sleep(0.01)


def _user_version(root: Path) -> int:
    db = sqlite3.connect(root / INDEX)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


@pytest.mark.slow
def test_a_rebuild_killed_halfway_is_done_again_completely_by_the_next_open(tmp_path: Path) -> None:
    data = _spine_bytes(_life("same"))
    for n in range(3000):  # many spines with the same lines: the rebuild takes long enough to be killed
        _write(tmp_path, _agent(n), data)
    _kill_halfway(tmp_path, _OPEN)
    assert _user_version(tmp_path) == 0  # nothing of the rebuild was committed
    with Index.open(tmp_path) as index:
        rebuilt = index.dump()
    assert _user_version(tmp_path) == SCHEMA_VERSION
    one = spine_rows(_agent(0), read_spine(tmp_path / _agent(0) / SPINE))  # every spine holds the same lines
    for table, rows in rebuilt.items():
        assert len(rows) == 3000 * len(one.get(table, [])), table
        assert [row for row in rows if _agent(0) in row] == sorted(one.get(table, []), key=repr)


@pytest.mark.slow
def test_a_reindex_killed_halfway_leaves_the_index_it_was_replacing(tmp_path: Path) -> None:
    data = _spine_bytes(_life("same"))
    for n in range(3000):
        _write(tmp_path, _agent(n), data)
    with Index.open(tmp_path) as index:
        before = index.dump()
    _kill_halfway(tmp_path, _REINDEX)
    assert _user_version(tmp_path) == SCHEMA_VERSION
    with Index.open(tmp_path) as index:
        assert index.dump() == before


_FLAGGED = """
import signal, sys
from pathlib import Path
from hz.session.index import Index
stopping = []
signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))  # as the daemon does: only a flag
with Index.open(Path(sys.argv[1]), refresh=False) as index:
    index.rebuild(processes=3)
print("rebuilt", stopping)
"""


def _children(pid: int) -> list[int]:
    try:
        return [int(n) for n in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        pytest.skip("this kernel does not list a process's children")


def _catches_no_sigterm(pid: int, seconds: float) -> bool:
    """Whether the process stops catching SIGTERM (its `SigCgt` mask in /proc) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        caught = int(next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1], 16)
        if not caught & (1 << (signal.SIGTERM - 1)):
            return True
        time.sleep(0.001)
    return False


def _gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":  # exited, waiting for its parent to collect it
            return True
        time.sleep(0.005)
    return False


@_LINUX
@pytest.mark.slow
def test_a_worker_stopped_with_sigterm_ends_and_the_parent_folds_its_share(tmp_path: Path) -> None:
    data = _spine_bytes(_life("same"))
    for n in range(3000):
        _write(tmp_path, _agent(n), data)
    with Index.open(tmp_path) as index:
        index.rebuild(processes=1)
        expected = index.dump()
    child = subprocess.Popen([sys.executable, "-c", _FLAGGED, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while len(workers := _children(child.pid)) < 2:
            assert child.poll() is None, "the rebuild ended before its workers were seen"
            assert time.monotonic() < deadline
            time.sleep(0.002)
        # A worker forked with the parent's handler, which only sets a flag, would fold on for its whole
        # share; it must catch SIGTERM no longer once it has started, and then end when told to.
        assert _catches_no_sigterm(workers[0], 5.0), "a worker kept the parent's SIGTERM handler"
        os.kill(workers[0], signal.SIGTERM)
        assert _gone(workers[0], 0.5), "a worker ignored SIGTERM"
        out, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert (child.returncode, out) == (0, "rebuilt []\n")
    with Index.open(tmp_path, refresh=False) as index:
        assert index.dump() == expected
