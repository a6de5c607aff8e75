"""The rows an agent's page reads besides the list's: skips, a turn's cap and flags, the latest summary, the
context edits, what became of each chat message, and until when a question is waited for.

`hz heinzel show` and the agent's page used to read and verify the whole spine for these on every view
(about 200 ms for 1,000 turns); kept in the index they are a few bounded queries. As for every table,
two implementations must agree exactly: `apply` (one SQL statement per event, for the lines a writer
appends; called by `hz.session.projection.apply`) and `PageFold` (in memory, for a rebuild; part of
`hz.session.fold.Fold`); the property test of the index compares them. The tables are in `hz.session.schema`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from hz.session.envelope import Envelope

SAID = "rq-"  # the requests that carry words (`hz.ops.turns`); a tick's wake (`wake-…`) has none to show
SUMMARY_FIELDS = ("asset", "wants", "decisions", "open_questions", "next_deadline", "sources")

# The kinds that change these rows: what `hz.session.fold` and `projection` hand on, a set test per line.
KINDS = frozenset({"turn.finished", "turn.skipped", "summary.written", "context.edit", "turn.steered",
                   "question.answered", "turn.requested", "turn.started", "turn.waiting"})  # fmt: skip


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def request_of(agent: str, key: str) -> str | None:
    """The chat request a turn's key names: `hz-…@rq-…` is the request itself, a retry's key
    `hz-…@retry:<turn>:<request>` ends with it; a key of another agent names none of this one's. Only
    requests with words (`SAID`) get a row: a schedule's key (`hz-…@2026-W05`) would give one per turn."""
    prefix = f"{agent}@"
    if not key.startswith(prefix):
        return None
    rest = key[len(prefix) :]
    return rest.rsplit(":", 1)[-1] if rest.startswith("retry:") else rest


def fates_of(agent: str, e: Envelope) -> tuple[str, list[str]] | None:
    """What the event says became of chat requests: (fate, request ids), or None. `own-turn` overrides an
    earlier fate (a queued message that then got its turn); the others keep the first one seen."""
    kind, d = e.kind, e.data
    if kind == "turn.started":  # the common case of a rebuild: a schedule's key, no request (a cheap test)
        said = [str(k) for k in d.get("keys", ()) if SAID in str(k)]
        found_all = (request_of(agent, k) for k in said)
        return ("own-turn", [r for r in found_all if r and r.startswith(SAID)]) if said else None
    if kind == "turn.steered":
        return "steered", [str(d["request_id"])]
    if kind == "question.answered" and d.get("request_id"):
        return "answer", [str(d["request_id"])]
    if kind == "turn.requested":
        found = request_of(agent, str(d.get("key", "")))
        return ("queued", [found]) if found and found.startswith(SAID) else None
    return None


def _cap(value: Any) -> str | None:
    return _json(value) if value else None


def _answer_until(e: Envelope) -> tuple[str, str] | None:
    on = e.data.get("on")
    if isinstance(on, dict) and on.get("kind") == "answer" and e.data.get("until"):
        return str(on.get("key")), str(e.data["until"])
    return None


def _skip(e: Envelope) -> tuple[Any, ...]:
    d = e.data
    causes = d.get("causes") or [None]
    return e.seq, e.ts, causes[0], d.get("reason"), float(d.get("usd", 0.0)), _cap(d.get("cap"))


def _mark(e: Envelope) -> tuple[str, str | None, str] | None:
    """A finished turn's cap and flags, kept only when it has either (most turns have neither)."""
    d = e.data
    if e.turn and (d.get("cap") or d.get("flags")):
        return e.turn, _cap(d.get("cap")), _json(list(d.get("flags", [])))
    return None


def _summary(e: Envelope) -> str:
    return _json({k: e.data.get(k) for k in SUMMARY_FIELDS})


# --- line by line (SQL) ----------------------------------------------------------------------------


def apply(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    kind = e.kind
    if kind == "turn.finished" and (mark := _mark(e)) is not None:
        db.execute("INSERT OR REPLACE INTO turn_marks VALUES (?, ?, ?, ?)", (agent, *mark))
    elif kind == "turn.skipped":
        db.execute("INSERT OR REPLACE INTO skips VALUES (?, ?, ?, ?, ?, ?, ?)", (agent, *_skip(e)))
    elif kind == "summary.written":
        db.execute("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?)", (agent, e.seq, e.ts, _summary(e)))
    elif kind == "context.edit":
        db.execute("INSERT OR REPLACE INTO edits VALUES (?, ?, ?, ?, ?)",
                   (agent, e.seq, str(e.data["target"]), e.data.get("replacement"), e.ts))  # fmt: skip
    elif kind == "turn.waiting" and (wait := _answer_until(e)) is not None:
        db.execute("INSERT OR REPLACE INTO answer_waits VALUES (?, ?, ?)", (agent, *wait))
    if (found := fates_of(agent, e)) is not None:
        fate, requests = found
        verb = "REPLACE" if fate == "own-turn" else "IGNORE"
        db.executemany(f"INSERT OR {verb} INTO fates VALUES (?, ?, ?, ?)", [(agent, r, fate, e.turn) for r in requests])


# --- from nothing (in memory) ----------------------------------------------------------------------


class PageFold:
    """The same rows as `apply` leaves, computed in plain Python for a rebuild."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.skips: list[tuple[Any, ...]] = []
        self.marks: dict[str, tuple[str | None, str]] = {}
        self.summary: tuple[int, str, str] | None = None
        self.edits: list[tuple[Any, ...]] = []
        self.fates: dict[str, tuple[str, str | None]] = {}
        self.waits: dict[str, str] = {}

    def apply(self, e: Envelope) -> None:
        kind = e.kind
        if kind == "turn.finished":  # no fate: done with it here (every turn of a rebuild comes this way)
            if (mark := _mark(e)) is not None:
                self.marks[mark[0]] = mark[1:]
            return
        if kind == "turn.skipped":
            self.skips.append(_skip(e))
        elif kind == "summary.written":
            self.summary = (e.seq, e.ts, _summary(e))
        elif kind == "context.edit":
            self.edits.append((e.seq, str(e.data["target"]), e.data.get("replacement"), e.ts))
        elif kind == "turn.waiting" and (wait := _answer_until(e)) is not None:
            self.waits[wait[0]] = wait[1]
        if (found := fates_of(self.agent, e)) is not None:
            fate, requests = found
            keep: Callable[[str], bool] = (lambda _: True) if fate == "own-turn" else (lambda r: r not in self.fates)
            for request in filter(keep, requests):
                self.fates[request] = (fate, e.turn)

    def rows(self) -> dict[str, list[tuple[Any, ...]]]:
        a = self.agent
        return {
            "skips": [(a, *s) for s in self.skips],
            "turn_marks": [(a, turn, *m) for turn, m in self.marks.items()],
            "summaries": [] if self.summary is None else [(a, *self.summary)],
            "edits": [(a, *x) for x in self.edits],
            "fates": [(a, r, *f) for r, f in self.fates.items()],
            "answer_waits": [(a, key, until) for key, until in self.waits.items()],
        }
