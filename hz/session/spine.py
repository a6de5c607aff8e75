"""The spine `<agent dir>/session.jsonl`: append-only, hash-chained, fsynced, one writer at a time.

API (others build on it, keep it stable):

- `read_spine(path, offset=0, head=None, last_seq=0) -> SpineRead`: the events (unknown kinds skipped,
  old kinds migrated) and the problems found. Reading from `offset` with the `head` hash and `last_seq`
  seen so far continues a chain without rereading it (the index's catch-up).
- `SpineWriter` (`hz.session.writer`, re-exported here): the one writer, under the spine's flock.

Lines are written in the compact line (`hz.session.compact`); lines of format 1 still read. A compacted
spine starts with a `spine.compacted` line (`hz.session.compaction`, `hz.session.folded`).

The lock and the index's pending marks are in `hz.session.lock` (re-exported here).

Crash rules: a torn last line (bytes after the last newline) is reported and ignored by readers and cut
off by the next writer, which records `spine.repaired`. A line edited, removed or moved in the middle
breaks the chain: the reader reports it with its seq and returns only what precedes it, and the agent
is frozen (`hz.session.frozen`) until `set_aside` moves the untrusted lines into a file of their own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path

import orjson

from hz.session.compact import Context, context_before, decode
from hz.session.envelope import ENVELOPE_VERSION, Envelope, EnvelopeError, envelope_from_dict
from hz.session.folded import COMPACTED, kept_events
from hz.session.kinds import KINDS, REQUIRED, missing_fields
from hz.session.lock import LOCK, PENDING, SPINE, clear_pending, mark_pending, pending, try_lock
from hz.session.migrate import MIGRATING, migrate, needs_migration
from hz.session.spine_file import NotAFile, SpineError, open_spine
from hz.session.writer import SpineWriter

__all__ = ["LOCK", "PENDING", "SPINE", "NotAFile", "Problem", "SpineError", "SpineRead", "SpineWriter", "clear_pending",
           "mark_pending", "parse_spine", "pending", "read_spine", "try_lock"]  # fmt: skip
_PREFIX = "sha256:"  # line hashes, as hz.canonical.fingerprint_bytes writes them


@dataclass(frozen=True)
class Problem:
    """Something a reader found: `torn` (ignored tail), `broken` (chain ends at `seq`)."""

    kind: str
    seq: int | None
    offset: int
    message: str

    def render(self) -> str:
        where = f"seq {self.seq}" if self.seq is not None else f"byte {self.offset}"
        return f"{where}: {self.message}"


@dataclass
class SpineRead:
    events: list[Envelope] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    end: int = 0  # byte offset just after the last line that was read and trusted
    head: str | None = None  # hash of that line
    last_seq: int = 0
    skipped: int = 0  # lines of unknown kinds

    @property
    def broken_at(self) -> int | None:
        return next((p.seq for p in self.problems if p.kind == "broken"), None)

    @property
    def break_problem(self) -> str | None:
        """Where and why the chain breaks, as the index stores it (`seq 12: …`); None for a whole spine."""
        return next((p.render() for p in self.problems if p.kind == "broken"), None)


def read_spine(path: Path | str, *, offset: int = 0, head: str | None = None, last_seq: int = 0) -> SpineRead:
    try:
        fd = open_spine(Path(path), os.O_RDONLY)
    except FileNotFoundError:
        return SpineRead(end=offset, head=head, last_seq=last_seq)
    except NotAFile as exc:  # read as a spine that breaks before its first line: the agent is frozen
        read = SpineRead(end=offset, head=head, last_seq=last_seq)
        read.problems.append(exc.problem(last_seq + 1, offset))
        return read
    with open(fd, "rb") as handle:
        context = context_before(handle.fileno(), offset) if offset > 0 else None
        handle.seek(offset)
        data = handle.read()
    return parse_spine(data, offset=offset, head=head, last_seq=last_seq, context=context)


def parse_spine(
    data: bytes, *, offset: int = 0, head: str | None = None, last_seq: int = 0, context: Context | None = None
) -> SpineRead:
    """Verify and parse spine bytes that start at `offset`, continuing a chain that ends in `head`.

    A line is trusted once the next line's `prev` confirms it (or it is the last one): when a line's
    `prev` does not match, the line before it is the one that changed, and it is left out too.
    `context` is the compact stretch the bytes start in (`hz.session.compact.context_before`).
    """
    lines = data.split(b"\n")
    torn = lines.pop()  # what follows the last newline: empty unless a write was cut short
    start = context or Context()
    result = _parse_intact(lines, offset, head, last_seq, start.copy()) if lines else None
    if result is not None:
        if torn:
            result.problems.append(Problem("torn", None, result.end, "torn last line ignored"))
        return result
    return _parse_careful(lines, torn, offset, head, last_seq, start.copy())


def _parse_one(line: bytes, chain: str | None, context: Context) -> Envelope:
    """One line of either format; a line of format 1 ends the compact stretch before it."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise EnvelopeError(f"not JSON: {exc}") from None
    if type(raw) is dict and "v" not in raw:
        return decode(raw, chain, context)
    context.reset()
    return envelope_from_dict(raw)


def _parse_careful(
    lines: list[bytes], torn: bytes, offset: int, head: str | None, last_seq: int, context: Context | None = None
) -> SpineRead:
    """Line by line, finding and naming the first line that is not right."""
    context = context or Context()
    result = SpineRead(end=offset, head=head, last_seq=last_seq)
    chain_head, chain_seq = head, last_seq
    held: Held | None = None
    at = offset
    for line in lines:
        kept: list[Envelope] = []
        try:
            envelope = _parse_one(line, chain_head, context)
            if envelope.kind == COMPACTED and chain_head is None and chain_seq == 0:  # a compacted spine's start
                kept, chain_seq = kept_events(envelope), envelope.seq - 1
        except EnvelopeError as exc:
            return _broken(result, held, chain_seq + 1, at, f"not a valid envelope ({exc.message})")
        if envelope.seq != chain_seq + 1:
            why = f"found seq {envelope.seq} where seq {chain_seq + 1} belongs (a line was removed or moved)"
            return _broken(result, held, chain_seq + 1, at, why)
        if envelope.prev != chain_head:
            if held is None:
                return _broken(result, None, envelope.seq, at, "the line does not continue the chain")
            result.problems.append(Problem("broken", held[0].seq, at, "the line was changed after it was written"))
            return result
        lacking = missing_fields(*migrate(envelope.kind, envelope.data))
        if lacking:  # chained, so written like this or edited as the last line: either way not an event
            why = f"its {envelope.kind} payload lacks {', '.join(lacking)}"
            return _broken(result, held, envelope.seq, at, why)
        if held is not None:
            _accept(result, held)
        at += len(line) + 1
        chain_head, chain_seq = _PREFIX + sha256(line).hexdigest(), envelope.seq
        held = (envelope, at, chain_head, kept)
    if held is not None:
        _accept(result, held)
    if torn:
        result.problems.append(Problem("torn", None, at, "torn last line ignored"))
    return result


Held = tuple[Envelope, int, str, list[Envelope]]  # a line read, not yet vouched for: its end, hash, kept events

# The C constructor of the named tuple, all eight fields given: the generated `Envelope(...)` is a Python
# function, and this runs once per line of every spine a reindex reads.
_new_envelope = tuple.__new__


def _parse_intact(
    lines: list[bytes], offset: int, head: str | None, last_seq: int, context: Context
) -> SpineRead | None:
    """The common case, every line a well-formed envelope continuing the chain, in one orjson call.

    Returns None at the first thing that is not so; the line-by-line reader above then finds and
    reports it. Joining the lines into one JSON array is only the same as parsing them one by one
    when every line holds exactly one value: a line that is not one whole value either makes the
    array invalid (a comma lands where JSON allows none) or changes the count of values, unless
    a line's `prev` were forged to hash a fragment, which is tampering the chain never claimed to
    stop. Each line's own bytes are still hashed and checked against the next line's `prev`.
    """
    try:
        raws = orjson.loads(b"[" + b",".join(lines) + b"]")
    except orjson.JSONDecodeError:
        return None
    if len(raws) != len(lines):
        return None
    hashes = [_PREFIX + sha256(line).hexdigest() for line in lines]
    events: list[Envelope] = []
    seq, skipped, new, kinds, migrating, required = last_seq, 0, _new_envelope, KINDS, MIGRATING, REQUIRED
    for raw, chain in zip(raws, [head, *hashes[:-1]], strict=True):  # the hot loop of every reindex
        seq += 1
        if type(raw) is dict and "v" not in raw:
            try:
                envelope = decode(raw, chain, context)
                if envelope.kind == COMPACTED and chain is None and seq == 1:  # a compacted spine's start
                    events.extend(kept_events(envelope))
                    seq = envelope.seq
            except EnvelopeError:
                return None
            if envelope.seq != seq or envelope.prev != chain:
                return None
            if envelope.kind in kinds:
                if not required[envelope.kind] <= envelope.data.keys():
                    return None
                events.append(envelope)
            else:
                skipped += 1
            continue
        context.reset()
        if type(raw) is not dict or len(raw) != 8 or raw.get("v") != ENVELOPE_VERSION:
            return None
        try:
            n, ts, prev, kind, data, turn, key = (
                raw["seq"], raw["ts"], raw["prev"], raw["kind"], raw["data"], raw["turn"], raw["key"]
            )  # fmt: skip
        except KeyError:
            return None
        if not (
            type(n) is int
            and n == seq
            and prev == chain
            and type(ts) is str
            and type(kind) is str
            and type(data) is dict
            and (turn is None or type(turn) is str)
            and (key is None or type(key) is str)
        ):
            return None
        if kind in migrating and needs_migration(kind, data):
            kind, data = migrate(kind, data)
        if kind in kinds:
            if not required[kind] <= data.keys():  # a line that lost a field: the careful reader names it
                return None
            events.append(new(Envelope, (n, ts, prev, kind, data, turn, key, ENVELOPE_VERSION)))
        else:
            skipped += 1
    end = offset + sum(map(len, lines)) + len(lines)
    return SpineRead(events=events, end=end, head=hashes[-1], last_seq=seq, skipped=skipped)


def _broken(result: SpineRead, held: Held | None, seq: int, at: int, why: str) -> SpineRead:
    if held is not None:
        _accept(result, held)
    result.problems.append(Problem("broken", seq, at, why))
    return result


def _accept(result: SpineRead, held: Held) -> None:
    envelope, result.end, result.head, kept = held
    result.events.extend(kept)
    result.last_seq = envelope.seq
    if needs_migration(envelope.kind, envelope.data):
        kind, data = migrate(envelope.kind, envelope.data)
        envelope = envelope._replace(kind=kind, data=data)
    if envelope.kind not in KINDS:
        result.skipped += 1
        return
    result.events.append(envelope)
