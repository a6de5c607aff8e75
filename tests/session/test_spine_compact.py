"""The compact spine line: a drafted turn's size, lossless reading, old spines, reading from the middle."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.runners.base import ThinkRequest, ThinkResult, Usage
from hz.runners.offline import offline_outcome
from hz.session.envelope import Envelope, format_line, format_ts, line_hash
from hz.session.spine import SPINE, SpineWriter, read_spine
from hz.turn import engine
from hz.turn.causes import Cause, coalesce, schedule_key
from hz.turn.journal import Journal
from tests.turn.helpers import AGENT, FRIDAY, deps, plan

GOAL = 1536  # bytes a drafted turn may add to its agent's spine (issue 22)
MARGIN = 136  # what the test keeps below the goal, so a few more bytes somewhere do not pass unnoticed
FP = "sha256:" + "ab" * 32


class Paid:
    """A runner answering at once with the offline outcome and a paid usage, as a model would report it."""

    name = "paid"

    def worst_case_usd(self, max_tokens: int) -> float:
        return 0.0

    def think(self, request: ThinkRequest) -> ThinkResult:
        return ThinkResult(offline_outcome(request), Usage(input_tokens=9000, output_tokens=1300, usd=0.0421))


class Ticking:
    """A clock that moves 1.7 s at every look, so the lines of a turn hold real gaps."""

    def __init__(self) -> None:
        self.now = FRIDAY

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1.7)
        return self.now


def _drafted_turns(home: Path, count: int) -> list[int]:
    directory = home / "heinzel" / AGENT
    directory.mkdir(parents=True, mode=0o700)
    clock = Ticking()
    sizes = []
    with Journal.open(directory, clock=clock, timeout=2.0) as journal:
        for hour in range(count):
            slot = FRIDAY + timedelta(hours=hour)
            clock.now = slot
            wake = coalesce(AGENT, [Cause("schedule", schedule_key(AGENT, slot), slot)])
            before = (directory / SPINE).stat().st_size if (directory / SPINE).exists() else 0
            result = engine.start(journal, plan(home), wake, deps(clock, runner=Paid()))
            assert result.disposition == "drafted"
            sizes.append((directory / SPINE).stat().st_size - before)
    return sizes


def test_a_drafted_turn_adds_at_most_a_kilobyte_and_a_half_to_the_spine(tmp_path: Path) -> None:
    sizes = _drafted_turns(tmp_path, 50)
    steady = sizes[5:]  # the turns that write a summary of the ones before included (two of these 45)
    assert statistics.mean(steady) <= GOAL - MARGIN, f"mean {statistics.mean(steady)} bytes per turn"
    assert statistics.median(steady) <= GOAL - MARGIN, f"median {statistics.median(steady)} bytes per turn"
    read = read_spine(tmp_path / "heinzel" / AGENT / SPINE)
    assert read.problems == []
    assert [e.kind for e in read.events].count("turn.finished") == 50


# --- lossless: what the writer appended is what every reader reads, from the start or the middle -------

_KEY = st.sampled_from(["k1", "hz-01JC0000000000000000000000@v1@2026-11-13T15:00Z@file:notes/w.md"])
_HASH = st.sampled_from([FP, "sha256:" + "cd" * 32])
_EVENTS = st.one_of(
    st.builds(lambda k, c: ("turn.started", {"cause": c, "contract_version": 1, "keys": [k]}, k),
              _KEY, st.sampled_from(["schedule", "asked"])),
    st.builds(lambda i: ("turn.step", {"step": "gather", "inputs": i}, None),
              st.dictionaries(st.sampled_from(["a", "b"]), _HASH)),
    st.builds(lambda t: ("turn.step", {"step": "think", "tokens": t, "body_ref": {"hash": FP, "size": t}}, None),
              st.integers(0, 5000)),
    st.builds(lambda k: ("effect.started", {"key": k, "effect": "place_draft"}, None), _KEY),
    st.builds(lambda k, h: ("effect.done", {"key": k, "hash": h}, None), _KEY, _HASH),
    st.builds(lambda k, h, v: ("draft.placed", {"key": k, "asset": "file:a.md", "hash": h, "contract_version": v},
                               None), _KEY, _HASH, st.integers(1, 2)),
    st.builds(lambda c, i, h, u: ("turn.finished", {"disposition": "drafted", "cause": c, "inputs": i,
                                                    "output_hash": h, "usd": u, "contract_version": 1}, None),
              st.sampled_from(["schedule", "asked"]), st.dictionaries(st.sampled_from(["a"]), _HASH),
              st.none() | _HASH, st.sampled_from([0.0, 0.25])),
    st.builds(lambda k: ("approval.observed", {"key": k, "decision": "approved"}, None), _KEY),
    st.just(("heinzel.paused", {}, None)),
)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_EVENTS, st.sampled_from([None, "T1", "T2"]), st.integers(0, 5000)), max_size=45),
       st.integers(1, 3))  # fmt: skip
def test_every_reader_reads_what_the_writer_appended(
    tmp_path_factory: Any, events: list[tuple[Any, str | None, int]], sessions: int
) -> None:
    directory = tmp_path_factory.mktemp("spine")
    written: list[Envelope] = []
    ends: list[tuple[int, str, int]] = []
    moment = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
    per = max(1, len(events) // sessions)
    for start in range(0, len(events), per):  # several writers one after the other
        with SpineWriter.open(directory) as writer:
            for (kind, data, key), turn, step in events[start : start + per]:
                moment += timedelta(milliseconds=step)
                written.append(writer.append(kind, data, turn=turn, key=key, now=moment))
                ends.append((writer.size, str(writer.head), writer.last_seq))
    read = read_spine(directory / SPINE)
    assert read.problems == []
    assert read.events == written
    for index, (end, head, last_seq) in enumerate(ends):  # the index's catch-up from after any line
        rest = read_spine(directory / SPINE, offset=end, head=head, last_seq=last_seq)
        assert rest.problems == []
        assert rest.events == written[index + 1 :]


# --- old spines ----------------------------------------------------------------------------------------


def _old_spine(directory: Path) -> list[Envelope]:
    """A spine as hz wrote it before the compact line: every envelope field on every line."""
    directory.mkdir(parents=True, mode=0o700)
    prev, lines, envelopes = None, [], []
    rows: list[tuple[str, dict[str, Any], str | None, str | None]] = [
        ("usage", {"kind": "summary", "tokens": 10, "tokens_cached": 0, "usd": 0.01}, None, None),
        ("turn.started", {"cause": "schedule", "contract_version": 1, "keys": ["k"]}, "T1", "k"),  # no causes
        ("effect.started", {"key": "k@doc", "effect": "place_draft"}, "T1", None),
        ("effect.done", {"key": "k@doc", "hash": FP}, "T1", None),
    ]
    for seq, (kind, data, turn, key) in enumerate(rows, start=1):
        envelope = Envelope(seq, format_ts(FRIDAY), prev, kind, data, turn, key)
        line = format_line(envelope)
        lines.append(line)
        envelopes.append(envelope)
        prev = line_hash(line)
    (directory / SPINE).write_bytes(b"".join(line + b"\n" for line in lines))
    (directory / SPINE).chmod(0o600)
    return envelopes


def test_an_old_spine_still_reads_and_grows_in_the_compact_form(tmp_path: Path) -> None:
    old = _old_spine(tmp_path / "agent")
    read = read_spine(tmp_path / "agent" / SPINE)
    assert read.problems == []
    assert read.events[1].data["causes"] == ["schedule"]  # migrated on read, as before
    assert [e.seq for e in read.events] == [1, 2, 3, 4] and read.events[3] == old[3]
    with SpineWriter.open(tmp_path / "agent") as writer:
        placed = writer.append("draft.placed", {"key": "k@doc", "asset": "doc:a", "hash": FP, "contract_version": 1},
                               turn="T1", now=FRIDAY)  # fmt: skip
    lines = (tmp_path / "agent" / SPINE).read_bytes().split(b"\n")[:-1]
    assert orjson.loads(lines[3])["v"] == 1 and "v" not in orjson.loads(lines[4])  # the file is never rewritten
    again = read_spine(tmp_path / "agent" / SPINE)
    assert again.problems == [] and again.events[:4] == read.events and again.events[4] == placed
    assert placed.prev == line_hash(lines[3])


def test_a_changed_compact_line_breaks_the_chain_there_and_the_rest_before_it_reads(tmp_path: Path) -> None:
    with SpineWriter.open(tmp_path) as writer:
        for n in range(6):
            writer.append("usage", {"kind": "summary", "tokens": n + 1, "usd": 0.01}, turn="T1", now=FRIDAY)
    lines = (tmp_path / SPINE).read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b'"tokens":4', b'"tokens":9')
    (tmp_path / SPINE).write_bytes(b"\n".join(lines))
    read = read_spine(tmp_path / SPINE)
    assert [e.data["tokens"] for e in read.events] == [1, 2, 3]
    assert [p.render() for p in read.problems] == ["seq 4: the line was changed after it was written"]


# --- compaction ------------------------------------------------------------------------------------------


def _live_rows(home: Path, *, rebuild: bool = True) -> dict[str, list[Any]]:
    """The index's rows that carry the agent's state (not the history of turns older than the retention),
    rebuilt from the spine or (`rebuild=False`) as the index caught up with it."""
    from hz.session.index import Index

    with Index.open(home / "heinzel") as index:
        if rebuild:
            index.rebuild()
        else:
            index.refresh(full=True)
        db = index.db
        return {
            table: [tuple(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]
            for table in ("agents", "versions", "amendments", "lessons", "summaries", "watched", "assets")
        } | {"pending": [tuple(r) for r in db.execute("SELECT * FROM drafts WHERE status = 'pending'")]}


def test_compaction_bounds_the_spine_by_its_retention_and_keeps_the_agents_state(tmp_path: Path) -> None:
    from hz.session.compaction import compact

    directory = tmp_path / "heinzel" / AGENT
    sizes = _drafted_turns(tmp_path, 60)  # hourly: 60 hours
    before_rows = _live_rows(tmp_path)  # and the index has read the whole spine
    before = read_spine(directory / SPINE)
    late = FRIDAY + timedelta(hours=60)  # a retention of one day keeps the turns of the last 24 hours
    with SpineWriter.open(directory) as writer:
        done = compact(writer, now=late, retention_days=1)
    assert done is not None and done.after < done.before
    assert oct((directory / SPINE).stat().st_mode & 0o777) == "0o600"
    after = read_spine(directory / SPINE)
    assert after.problems == []
    first = after.events[[e.kind for e in after.events].index("spine.compacted")]
    folded_turns = sum(first.data["turns"].values())
    assert folded_turns == 36 and first.data["turns"] == {"drafted": 36}
    # the turns' own spend by cause, and the summary one of them wrote of the turns before it
    assert first.data["usd"] == {"schedule": round(0.0421 * 36, 6), "summary": 0.0421}
    assert [e for e in after.events if e.seq > first.seq] == [
        e for e in before.events if e.seq > first.seq
    ] or all(  # the lines after the fold are written again (new prev), with the same events
        a._replace(prev=None) == b._replace(prev=None)
        for a, b in zip([e for e in after.events if e.seq > first.seq], [e for e in before.events if e.seq > first.seq],
                        strict=True)
    )  # fmt: skip
    assert _live_rows(tmp_path, rebuild=False) == before_rows  # the index that had read the old spine follows
    assert _live_rows(tmp_path) == before_rows
    assert (directory / SPINE).stat().st_size < 26 * max(sizes)  # bounded by a day of turns, not 60 hours
    with SpineWriter.open(directory) as writer:  # nothing more to fold: it changes nothing
        assert compact(writer, now=late, retention_days=1) is None


def test_a_compacted_spine_goes_on_and_a_changed_line_after_it_is_contained(tmp_path: Path) -> None:
    from hz.session.compaction import compact

    directory = tmp_path / "heinzel" / AGENT
    _drafted_turns(tmp_path, 30)
    with SpineWriter.open(directory) as writer:
        assert compact(writer, now=FRIDAY + timedelta(days=2), retention_days=1) is not None
        writer.append("usage", {"kind": "summary", "tokens": 5, "usd": 0.01}, now=FRIDAY + timedelta(days=2))
    whole = read_spine(directory / SPINE)
    assert whole.problems == [] and whole.events[-1].kind == "usage"
    lines = (directory / SPINE).read_bytes().split(b"\n")
    lines[3] = lines[3][:-2] + b"9}"  # a line after the compacted one changed
    (directory / SPINE).write_bytes(b"\n".join(lines))
    damaged = read_spine(directory / SPINE)
    broken = damaged.broken_at
    assert broken is not None and damaged.events and damaged.events[-1].seq == broken - 1
    assert [p.kind for p in damaged.problems] == ["broken"]


def test_hz_heinzel_prune_compacts_the_spines_past_the_retention(hz: Any, tmp_path: Path) -> None:
    import json

    from hz.config import config_home, hz_home

    home = hz_home()
    _drafted_turns(home, 12)  # hourly turns from 2026-10-30; the retention below is a day
    config_home().mkdir(parents=True, exist_ok=True)
    (config_home() / "config.toml").write_text("[heinzel]\nretention_days = 1\n")
    spine = home / "heinzel" / AGENT / SPINE
    size = spine.stat().st_size
    result = hz("heinzel", "prune", "--json")
    assert result.exit_code == 0 and json.loads(result.out)["compacted"] == [AGENT]
    assert spine.stat().st_size < size / 4
    assert read_spine(spine).problems == []
    assert hz("heinzel", "reindex").out == "rebuilt the index from 1 spine(s)\n"
    assert json.loads(hz("heinzel", "prune", "--json").out)["compacted"] == []


def test_an_old_spine_is_compacted_and_its_lines_after_the_fold_are_written_compact(tmp_path: Path) -> None:
    from hz.session.compaction import compact

    directory = tmp_path / "heinzel" / AGENT
    _drafted_turns(tmp_path, 30)
    events = read_spine(directory / SPINE).events
    prev, old = None, []
    for envelope in events:  # the same events as hz wrote them before the compact line
        line = format_line(envelope._replace(prev=prev))
        prev = line_hash(line)
        old.append(line + b"\n")
    (directory / SPINE).write_bytes(b"".join(old))
    before_rows = _live_rows(tmp_path)
    with SpineWriter.open(directory) as writer:
        assert compact(writer, now=FRIDAY + timedelta(hours=30), retention_days=1) is not None
    lines = (directory / SPINE).read_bytes().split(b"\n")[:-1]
    assert all("v" not in orjson.loads(line) for line in lines)
    assert read_spine(directory / SPINE).problems == []
    assert _live_rows(tmp_path) == before_rows
