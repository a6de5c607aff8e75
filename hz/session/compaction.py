"""Compaction: the turns older than the retention folded behind one line, so a spine is bounded by its
retention, not by its age.

`compact(writer, now=, retention_days=)` runs under the spine's writer lock. It folds the longest start
of the spine that ends with a turn ended before `now - retention_days`, while no turn is open, before
the last turn started and before the last line that sets when the agent is next due. The new spine is
one `spine.compacted` line (seq and time of the last folded line; `head` the hash of that line,
`folded_hash` of every folded byte; what the folded turns added up to; the events among them that are
still live, whole) followed by the lines after the fold, written again in the compact line, chained from
it. The file is replaced atomically (a new 0600 file, fsync, rename, fsync of the folder), after the new
bytes were read back and found to hold the same events.

Live events (kept): the agent's lifecycle, contract versions, amendments, lessons, context edits, the
last summary, drafts still pending, questions not answered. Everything else of the folded turns (their
steps, effects, usage, fates, answered questions) leaves the spine and the index; the turns they ended
stay counted in `turns` and their spend in `usd`. A spine with a break, or with lines of kinds this hz
does not know, is never compacted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.canonical import fingerprint_bytes
from hz.session.compact import Context, encode
from hz.session.envelope import Envelope, line_hash
from hz.session.folded import COMPACTED
from hz.session.lock import SPINE

if TYPE_CHECKING:
    from hz.session.spine import SpineWriter

_ALWAYS = frozenset({"heinzel.created", "heinzel.bound", "heinzel.renamed", "heinzel.paused", "heinzel.unpaused",
                     "heinzel.retired", "heinzel.unretired", "contract.proposed", "contract.approved",
                     "contract.amended", "contract.refreshed", "amendment.proposed", "amendment.refused",
                     "amendment.declined", "lesson.recorded", "lesson.dismissed", "context.edit"})  # fmt: skip
_ENDS = frozenset({"turn.finished", "turn.skipped"})


@dataclass(frozen=True)
class Compaction:
    folded_lines: int
    kept: int
    before: int  # bytes
    after: int


def compact(writer: SpineWriter, *, now: datetime, retention_days: int) -> Compaction | None:
    """Fold what is older than the retention; None when there is nothing to fold (or it may not be)."""
    from hz.session.spine import parse_spine

    if retention_days <= 0:
        return None
    path = writer.directory / SPINE
    data = path.read_bytes()
    read = parse_spine(data)
    if read.problems or read.skipped or not read.events:
        return None
    events = read.events
    cut = fold_point(events, (now - timedelta(days=retention_days)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    if cut is None:
        return None
    lines = data.split(b"\n")[:-1]
    first = _first_seq(lines[0])
    folded_bytes = b"".join(line + b"\n" for line in lines[: cut - first + 1])
    folded = [e for e in events if e.seq <= cut]
    retained = [e for e in events if e.seq > cut]
    kept = live(folded, events)
    payload = _summary(folded, kept, folded_bytes, lines[cut - first])
    new = _write(Envelope(cut, folded[-1].ts, None, COMPACTED, payload), retained)
    check = parse_spine(new)
    expected = [*kept, *(e._replace(prev=None) for e in retained)]
    got = [e._replace(prev=None) for e in check.events if e.kind != COMPACTED]
    if check.problems or got != expected:  # pragma: no cover - the codec reads back what it wrote
        return None
    writer.replace(new)
    return Compaction(cut - first + 1, len(kept), len(data), len(new))


def fold_point(events: list[Envelope], cutoff: str) -> int | None:
    """The seq of the last line to fold: a turn's end older than `cutoff` with no turn open, before the
    last turn started and the last line saying when the agent is next due."""
    last_start = max((e.seq for e in events if e.kind == "turn.started"), default=0)
    last_due = max((e.seq for e in events if "next_due" in e.data), default=0)
    limit = min(last_start, last_due) if last_due else last_start
    open_turns: set[str] = set()
    cut = None
    for e in events:
        if e.seq >= limit or e.ts >= cutoff:
            break
        if e.kind == "turn.started" and e.turn is not None:
            open_turns.add(e.turn)
        elif e.kind == "turn.finished" and e.turn is not None:
            open_turns.discard(e.turn)
        if e.kind in _ENDS and not open_turns:
            cut = e.seq
    return cut


def live(folded: list[Envelope], events: list[Envelope]) -> list[Envelope]:
    """The folded events the agent's state still stands on; the rest changes nothing readers derive."""
    decided = {e.data.get("key") for e in events if e.kind == "approval.observed"}
    answered = {e.data.get("key") for e in events if e.kind == "question.answered"}
    retried = {e.data.get("parent_turn") for e in events if e.kind == "turn.started"}
    newest: dict[str, int] = {}
    for e in events:
        if e.kind == "draft.placed":
            newest[e.data["asset"]] = e.seq
    summaries = [e.seq for e in folded if e.kind == "summary.written"]
    keep = []
    for e in folded:
        kind = e.kind
        if (
            kind in _ALWAYS
            or (kind == "summary.written" and e.seq == summaries[-1])
            or (kind == "question.asked" and e.data.get("key") not in answered)
            or (
                kind == "draft.placed"
                and e.data.get("key") not in decided
                and newest.get(e.data["asset"]) == e.seq
                and e.turn not in retried
            )
        ):
            keep.append(e._replace(prev=None))
    return keep


def _summary(folded: list[Envelope], kept: list[Envelope], folded_bytes: bytes, last: bytes) -> dict[str, Any]:
    from hz.session.vocabulary import validate_payload

    turns: dict[str, int] = {}
    usd: dict[str, float] = {}
    inputs: dict[str, str] = {}
    for e in folded:
        d = e.data
        if e.kind == COMPACTED:  # an earlier compaction's totals go on
            for name, count in d.get("turns", {}).items():
                turns[name] = turns.get(name, 0) + count
            for name, spent in d.get("usd", {}).items():
                usd[name] = usd.get(name, 0.0) + spent
        elif e.kind in _ENDS:
            name = d.get("disposition", "skipped")
            turns[name] = turns.get(name, 0) + 1
            cause = d.get("cause") or (d.get("causes") or ["schedule"])[0]
            if d.get("usd"):
                usd[cause] = usd.get(cause, 0.0) + d["usd"]
        elif e.kind == "usage" and d.get("usd"):
            usd[d["kind"]] = usd.get(d["kind"], 0.0) + d["usd"]
        if e.kind in (COMPACTED, "turn.step", "turn.finished", "turn.skipped") and d.get("inputs"):
            inputs.update(d["inputs"])
    data = {
        "head": line_hash(last),
        "folded_hash": fingerprint_bytes(folded_bytes),
        "folded_bytes": len(folded_bytes),
        "folded_lines": folded_bytes.count(b"\n"),
        "turns": turns,
        "usd": {name: round(spent, 6) for name, spent in usd.items()},
        "inputs": inputs,
        "kept": [_kept(e) for e in kept],
    }
    return validate_payload(COMPACTED, data)


def _kept(e: Envelope) -> dict[str, Any]:
    return {"seq": e.seq, "ts": e.ts, "turn": e.turn, "kind": e.kind, "key": e.key, "data": e.data}


def _write(summary: Envelope, retained: list[Envelope]) -> bytes:
    context = Context()
    out = []
    chain: str | None = None
    for envelope in (summary, *retained):
        line = encode(envelope._replace(prev=chain), _moment(envelope.ts), context)
        chain = line_hash(line)
        out.append(line + b"\n")
    return b"".join(out)


def _moment(ts: str) -> datetime:
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _first_seq(line: bytes) -> int:
    import orjson

    raw = orjson.loads(line)
    return int(raw.get("n", raw.get("seq")))
