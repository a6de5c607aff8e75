"""Any change to a line before the last one breaks the spine there, and no turn starts on it.

The tick's freeze (`hz.session.frozen`) rests on this: whatever bytes a hand, an editor or a disk put
into the middle of a spine, the reader names the changed line's seq (or the one before it, when a
`prev` was what changed), trusts only what precedes it,
and the turn engine's journal refuses to open, leaving the file as it was.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.session.frozen import FrozenSpine
from hz.session.spine import SPINE, SpineWriter, parse_spine, read_spine
from hz.turn.journal import Journal

NOW = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
LINES = 6


def _spine(directory: Path) -> bytes:
    with SpineWriter.open(directory) as writer:
        for n in range(LINES):
            writer.append("usage", {"kind": "summary", "tokens": n, "usd": 0.01}, now=NOW)
    return (directory / SPINE).read_bytes()


@st.composite
def changed_line(draw: st.DrawFn) -> tuple[int, bytes]:
    """(index of a line that is not the last, its new bytes): a byte replaced, bytes cut or put in."""
    index = draw(st.integers(0, LINES - 2))
    line = ORIGINAL.split(b"\n")[index]
    at = draw(st.integers(0, len(line)))
    how = draw(st.sampled_from(["replace", "cut", "insert"]))
    if how == "replace" and at < len(line):
        byte = draw(st.integers(0, 255).filter(lambda b: b != line[at]))
        return index, line[:at] + bytes([byte]) + line[at + 1 :]
    if how == "cut" and at < len(line):
        return index, line[:at] + line[at + draw(st.integers(1, len(line) - at)) :]
    return index, line[:at] + draw(st.binary(min_size=1, max_size=8)) + line[at:]


with tempfile.TemporaryDirectory() as _folder:
    ORIGINAL = _spine(Path(_folder))


@settings(max_examples=300, deadline=None)
@given(changed_line())
def test_a_changed_line_breaks_the_spine_at_its_seq(change: tuple[int, bytes]) -> None:
    index, line = change
    lines = ORIGINAL.split(b"\n")
    whole = parse_spine(ORIGINAL).events
    lines[index] = line
    read = parse_spine(b"\n".join(lines))
    # A `prev` that does not match blames the line before it: the reader cannot tell which of the two
    # changed, so it trusts neither.
    assert read.broken_at in (index, index + 1)
    assert read.broken_at is not None
    assert read.events == whole[: read.broken_at - 1]


@pytest.mark.parametrize("index", range(LINES - 1))
def test_the_journal_refuses_a_broken_spine_and_leaves_it_as_it_was(tmp_path: Path, index: int) -> None:
    lines = _spine(tmp_path).split(b"\n")
    lines[index] = lines[index].replace(b'"usd":0.01', b'"usd":0.02')
    damaged = b"\n".join(lines)
    (tmp_path / SPINE).write_bytes(damaged)
    problem = f"seq {index + 1}: the line was changed after it was written"
    assert read_spine(tmp_path / SPINE).break_problem == problem
    with pytest.raises(FrozenSpine) as refused:
        Journal.open(tmp_path, clock=lambda: NOW, timeout=1.0)
    assert refused.value.render() == (
        f"error: {tmp_path.name} is frozen: its spine breaks at {problem}\n"
        f"  hint: hz heinzel repair {tmp_path.name} sets the untrusted lines aside (or restore the line from a backup)"
    )
    assert (tmp_path / SPINE).read_bytes() == damaged
    SpineWriter.open(tmp_path, timeout=0.0).close()  # the refusal let go of the spine's lock


@pytest.mark.parametrize("ms", [10**15 + 1793372400000, -(10**15), 10**30])
def test_a_time_changed_past_the_years_a_date_holds_breaks_the_spine_there(ms: int) -> None:
    """A digit put into a line's time (as the property test above found: 1000793372400000 ms) once raised
    OverflowError out of the reader, crashing every command that read the agent."""
    lines = ORIGINAL.split(b"\n")
    lines[0] = lines[0].replace(b'"t":1793372400000', b'"t":%d' % ms)
    read = parse_spine(b"\n".join(lines))
    assert read.broken_at == 1 and read.events == []
