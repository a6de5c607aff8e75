"""The spine: chain, fsync, one writer, torn and edited lines, unknown and old kinds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.errors import LockTimeout
from hz.session.envelope import Envelope, format_line, line_hash, parse_line
from hz.session.spine import SPINE, SpineError, SpineWriter, read_spine
from hz.session.spine import parse_spine as read_spine_bytes

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
USAGE = {"kind": "summary", "tokens": 10, "usd": 0.01}


def _append(directory: Path, count: int) -> None:
    with SpineWriter.open(directory) as writer:
        for _ in range(count):
            writer.append("usage", USAGE, now=NOW)


def _lines(directory: Path) -> list[bytes]:
    return (directory / SPINE).read_bytes().split(b"\n")[:-1]


def test_append_chains_every_line_to_the_previous_one(tmp_path: Path) -> None:
    _append(tmp_path, 3)
    lines = _lines(tmp_path)
    envelopes = read_spine(tmp_path / SPINE).events
    assert [e.seq for e in envelopes] == [1, 2, 3]
    assert envelopes[0].prev is None
    assert envelopes[1].prev == line_hash(lines[0])
    assert envelopes[2].prev == line_hash(lines[1])
    assert envelopes[0].ts == "2026-10-30T15:00:00.000Z"
    assert envelopes[0].data == {"kind": "summary", "tokens": 10, "tokens_cached": 0, "usd": 0.01}
    # the compact line (format 2): the first names its turn (none) and time; defaults are left out
    assert orjson.loads(lines[0]) == {"n": 1, "t": 1793372400000, "u": None, "k": 19,
                                      "d": {"kind": "summary", "tokens": 10, "usd": 0.01}}  # fmt: skip
    assert orjson.loads(lines[1]) == {"n": 2, "p": line_hash(lines[0])[7:23], "k": 19,
                                      "d": {"kind": "summary", "tokens": 10, "usd": 0.01}}  # fmt: skip
    assert oct((tmp_path / SPINE).stat().st_mode & 0o777) == "0o600"


def test_a_reopened_writer_continues_the_chain(tmp_path: Path) -> None:
    _append(tmp_path, 2)
    _append(tmp_path, 2)
    read = read_spine(tmp_path / SPINE)
    assert [e.seq for e in read.events] == [1, 2, 3, 4]
    assert read.problems == []


def test_a_payload_that_would_smuggle_a_line_stays_one_line(tmp_path: Path) -> None:
    with SpineWriter.open(tmp_path) as writer:
        writer.append("question.asked", {"key": "k", "question": 'ok"}\n{"v":1,"seq":2'})
    assert len(_lines(tmp_path)) == 1
    assert read_spine(tmp_path / SPINE).events[0].data["question"] == 'ok"}\n{"v":1,"seq":2'


def test_a_bad_payload_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    with SpineWriter.open(tmp_path) as writer, pytest.raises(SpineError) as info:
        writer.append("lesson.recorded", {"lesson_id": "l1"})
    assert info.value.message == "refused to append lesson.recorded: sentence: Field required"
    assert (tmp_path / SPINE).read_bytes() == b""


def test_a_torn_last_line_is_ignored_then_cut_and_recorded(tmp_path: Path) -> None:
    _append(tmp_path, 2)
    size = (tmp_path / SPINE).stat().st_size
    with open(tmp_path / SPINE, "ab") as handle:
        handle.write(b'{"v":1,"seq":3,"ts":"2026-')
    read = read_spine(tmp_path / SPINE)
    assert [e.seq for e in read.events] == [1, 2]
    assert [p.render() for p in read.problems] == [f"byte {size}: torn last line ignored"]
    _append(tmp_path, 1)
    read = read_spine(tmp_path / SPINE)
    assert read.problems == []
    assert [(e.seq, e.kind) for e in read.events] == [(1, "usage"), (2, "usage"), (3, "spine.repaired"), (4, "usage")]
    assert read.events[2].data == {
        "offset": size, "dropped_bytes": 26, "dropped_hash": line_hash(b'{"v":1,"seq":3,"ts":"2026-'),
    }  # fmt: skip


def test_a_hand_edited_line_is_found_with_its_seq(tmp_path: Path) -> None:
    _append(tmp_path, 5)
    lines = _lines(tmp_path)
    lines[2] = lines[2].replace(b'"tokens":10', b'"tokens":99')
    (tmp_path / SPINE).write_bytes(b"\n".join(lines) + b"\n")
    read = read_spine(tmp_path / SPINE)
    assert [e.seq for e in read.events] == [1, 2]
    assert [p.render() for p in read.problems] == ["seq 3: the line was changed after it was written"]
    assert read.broken_at == 3


@pytest.mark.parametrize("line", [2, 4])  # in the middle (the next prev also fails), and the last line
def test_a_line_that_lost_a_field_its_kind_requires_breaks_the_chain_there(tmp_path: Path, line: int) -> None:
    _append(tmp_path, 5)
    lines = _lines(tmp_path)
    lines[line] = lines[line].replace(b'"kind":"summary",', b"")
    (tmp_path / SPINE).write_bytes(b"\n".join(lines) + b"\n")
    read = read_spine(tmp_path / SPINE)
    assert [e.seq for e in read.events] == list(range(1, line + 1))
    assert [p.render() for p in read.problems] == [f"seq {line + 1}: its usage payload lacks kind"]


@given(st.integers(min_value=0, max_value=4), st.data())
def test_no_line_missing_a_payload_field_ever_reaches_a_reader(line: int, data: st.DataObject) -> None:
    from hz.session.kinds import missing_fields

    raw = _spine_bytes(5).split(b"\n")
    envelope = parse_line(raw[line])
    dropped = data.draw(st.sampled_from(sorted(envelope.data)))
    raw[line] = format_line(envelope._replace(data={k: v for k, v in envelope.data.items() if k != dropped}))
    read = read_spine_bytes(b"\n".join(raw))
    assert read == _careful(b"\n".join(raw))
    assert all(not missing_fields(e.kind, e.data) for e in read.events)
    if line == 4:  # the last line has no successor to vouch for it: only its payload can give it away
        assert len(read.events) == (4 if dropped == "kind" else 5)


def test_a_removed_or_moved_line_is_found_with_its_seq(tmp_path: Path) -> None:
    _append(tmp_path, 5)
    lines = _lines(tmp_path)
    lines[1], lines[3] = lines[3], lines[1]
    (tmp_path / SPINE).write_bytes(b"\n".join(lines) + b"\n")
    read = read_spine(tmp_path / SPINE)
    assert [e.seq for e in read.events] == [1]
    assert [p.render() for p in read.problems] == [
        "seq 2: found seq 4 where seq 2 belongs (a line was removed or moved)"
    ]


def test_unknown_kinds_are_skipped_and_old_shapes_migrated_without_rewriting(tmp_path: Path) -> None:
    first = Envelope(1, "2026-10-30T15:00:00.000Z", None, "turn.started", {"cause": "schedule", "contract_version": 1})
    second = Envelope(2, "2026-10-30T15:00:01.000Z", line_hash(format_line(first)), "telepathy.sent", {"x": 1})
    third = Envelope(3, "2026-10-30T15:00:02.000Z", line_hash(format_line(second)), "turn.finished",
                     {"disposition": "skipped", "cause": "schedule"})  # fmt: skip
    raw = b"".join(format_line(e) + b"\n" for e in (first, second, third))
    (tmp_path / SPINE).write_bytes(raw)
    read = read_spine(tmp_path / SPINE)
    assert [(e.seq, e.kind) for e in read.events] == [(1, "turn.started"), (3, "turn.finished")]
    assert read.events[0].data["causes"] == ["schedule"]
    assert read.events[1].data["causes"] == ["schedule"]
    assert read.skipped == 1
    assert read.problems == []
    assert (tmp_path / SPINE).read_bytes() == raw


def test_a_second_writer_waits_then_fails_clearly(tmp_path: Path) -> None:
    with SpineWriter.open(tmp_path), pytest.raises(LockTimeout) as info:
        SpineWriter.open(tmp_path, timeout=0.05)
    assert info.value.message == f"the session in {tmp_path} is held by another hz process (waited 0.05 s)"
    assert info.value.hint == "it is released when that turn ends; a chat message waits in the inbox meanwhile"


def test_the_lock_is_held_across_processes(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path)], stdout=subprocess.PIPE, stdin=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        with pytest.raises(LockTimeout):
            SpineWriter.open(tmp_path, timeout=0.05)
    finally:
        holder.communicate(b"\n", timeout=10)
    _append(tmp_path, 1)
    assert [e.seq for e in read_spine(tmp_path / SPINE).events] == [1]


_HOLD = """
import sys
from pathlib import Path
from typing import Any
from hz.session.spine import SpineWriter
with SpineWriter.open(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.readline()
"""

_APPENDER = """
import sys
from pathlib import Path
from typing import Any
from hz.session.spine import SpineWriter
directory, label, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(count):
    with SpineWriter.open(directory, timeout=30) as writer:
        writer.append("effect.started", {"key": f"{label}-{i}", "effect": "count"})
"""


@pytest.mark.slow
def test_two_processes_appending_at_once_never_interleave_lose_or_reuse(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", _APPENDER, str(tmp_path), label, "60"]) for label in ("a", "b")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    read = read_spine(tmp_path / SPINE)
    assert read.problems == []
    assert [e.seq for e in read.events] == list(range(1, 121))
    keys = [e.data["key"] for e in read.events]
    assert sorted(keys) == sorted([f"a-{i}" for i in range(60)] + [f"b-{i}" for i in range(60)])
    assert [k for k in keys if k.startswith("a")] == [f"a-{i}" for i in range(60)]


_KILLED = """
import sys
from pathlib import Path
from typing import Any
from hz.session.spine import SpineWriter
directory = Path(sys.argv[1])
with SpineWriter.open(directory, timeout=30) as writer:
    writer.append("effect.started", {"key": "k-0", "effect": "count"})
    print("go", flush=True)
    i = 1
    while True:
        writer.append("effect.started", {"key": f"k-{i}", "effect": "count"})
        i += 1
"""


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.05, 0.2])
def test_kill_9_in_the_middle_of_appends_leaves_a_readable_chain(tmp_path: Path, delay: float) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(tmp_path)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"go\n"
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    read = read_spine(tmp_path / SPINE)
    assert read.broken_at is None
    count = len(read.events)
    assert count > 0
    assert [e.data["key"] for e in read.events] == [f"k-{i}" for i in range(count)]
    _append(tmp_path, 1)  # the next writer continues the chain, cutting a torn line if there was one
    after = read_spine(tmp_path / SPINE)
    assert after.problems == []
    assert after.events[-1].seq == after.last_seq
    assert [e.seq for e in after.events] == list(range(1, after.last_seq + 1))


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(
    seq=st.integers(1, 2**40),
    kind=st.text(min_size=1, max_size=30),
    data=st.dictionaries(st.text(max_size=10), _json_values, max_size=5),
    turn=st.none() | st.text(max_size=20),
    key=st.none() | st.text(max_size=40),
)
def test_format_and_parse_are_inverse_and_a_line_is_always_one_line(
    seq: int, kind: str, data: dict[str, Any], turn: str | None, key: str | None
) -> None:
    envelope = Envelope(seq, "2026-10-30T15:00:00.000Z", None, kind, data, turn, key)
    line = format_line(envelope)
    assert b"\n" not in line and b"\r" not in line
    assert parse_line(line) == envelope


def _spine_bytes(count: int) -> bytes:
    lines, prev = [], None
    for seq in range(1, count + 1):
        line = format_line(Envelope(seq, "2026-10-30T15:00:00.000Z", prev, "usage", {"kind": "summary", "usd": 0.5}))
        prev = line_hash(line)
        lines.append(line)
    return b"\n".join(lines) + b"\n"


def _careful(data: bytes) -> Any:
    from hz.session.spine import _parse_careful

    lines = data.split(b"\n")
    torn = lines.pop()
    return _parse_careful(lines, torn, 0, None, 0)


@given(
    st.lists(
        st.tuples(st.integers(min_value=0), st.sampled_from([b"\n", b",", b"}", b"{", b" ", b"", b"]", b"1"])),
        min_size=1,
        max_size=3,
    )
)
def test_the_one_call_reader_agrees_with_the_line_by_line_reader_on_any_edit(edits: list[tuple[int, bytes]]) -> None:
    data = bytearray(_spine_bytes(5))
    for position, replacement in edits:  # replace one byte (or delete it, for b"")
        at = position % len(data)
        data[at : at + 1] = replacement
    assert read_spine_bytes(bytes(data)) == _careful(bytes(data))


def test_two_envelopes_on_one_line_break_the_chain_there() -> None:
    lines = _spine_bytes(4).split(b"\n")
    joined = b"\n".join([lines[0], lines[1] + b"," + lines[2], lines[3]]) + b"\n"
    read = read_spine_bytes(joined)
    assert [e.seq for e in read.events] == [1]
    end = len(lines[1])  # where the second envelope's comma is
    assert [p.render() for p in read.problems] == [
        "seq 2: not a valid envelope (not JSON: unexpected content after document:"
        f" line 1 column {end + 1} (char {end}))"
    ]
