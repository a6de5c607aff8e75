"""How each spine event changes the index: one small function per kind, plus `settle` per agent.

`apply(db, agent, event)` is used both when catching up and when rebuilding, so the index maintained
line by line and the index rebuilt from the spines are the same by construction (a property test
checks it). `settle(db, agent)` derives what depends on several rows: the state, the pending items and
`due_at` (the next due slot while the agent may be woken, else NULL), the column the tick's one query
reads.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import orjson

from hz.session import page_rows
from hz.session.envelope import Envelope

Handler = Callable[[sqlite3.Connection, str, Envelope], None]
_HANDLERS: dict[str, Handler] = {}


def _on(kind: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        _HANDLERS[kind] = handler
        return handler

    return register


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


_KEYED = frozenset({"effect.started", "effect.done", "effect.failed", "draft.placed", "question.asked",
                    "question.answered", "turn.requested"})  # fmt: skip
_KEY_SQL = (
    "INSERT INTO keys VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent, key) DO UPDATE SET"
    " kind = excluded.kind, seq = excluded.seq, turn = excluded.turn"
)


def apply(db: sqlite3.Connection, agent: str, event: Envelope) -> None:
    handler = _HANDLERS.get(event.kind)
    if handler is not None:
        handler(db, agent, event)
    if event.kind in page_rows.KINDS:
        page_rows.apply(db, agent, event)
    keys = keys_of(event)
    if len(keys) == 1:
        db.execute(_KEY_SQL, (agent, keys[0], event.kind, event.seq, event.turn))
    elif keys:
        db.executemany(_KEY_SQL, [(agent, key, event.kind, event.seq, event.turn) for key in keys])


# Kinds whose payload may name keys: with `key` null, any other kind has none (a reader's shortcut).
KEY_KINDS = _KEYED | {"turn.started", "turn.skipped"}


def keys_of(event: Envelope) -> list[str]:
    """Every idempotency key an event speaks for: the envelope's, a turn's `keys`, an item's `key`."""
    keys = [event.key] if event.key is not None else []
    if event.kind in _KEYED:
        keys.append(event.data["key"])
    elif event.kind in ("turn.started", "turn.skipped"):
        keys.extend(event.data.get("keys", ()))
    return list(dict.fromkeys(keys))


def _cost(db: sqlite3.Connection, agent: str, event: Envelope, cause: str, usd: float) -> None:
    if usd:
        db.execute(
            "INSERT INTO costs VALUES (?, ?, ?, ?)"
            " ON CONFLICT (agent, day, cause) DO UPDATE SET usd = usd + excluded.usd",
            (agent, event.ts[:10], cause, usd),
        )


# --- the agent -----------------------------------------------------------------------------------


@_on("heinzel.created")
def _created(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute(
        "INSERT OR REPLACE INTO agents (id, name, namespace, handle, origin, source, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (agent, d["name"], d["namespace"], d.get("handle"), d.get("origin"), d.get("source"), e.ts),
    )
    _bound(db, agent, d.get("repository") or {})


@_on("heinzel.bound")
def _rebound(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    _bound(db, agent, e.data)


def _bound(db: sqlite3.Connection, agent: str, where: dict[str, str]) -> None:
    """The repository the agent belongs to (`hz.heinzel.repository`); each binding states all of it."""
    db.execute(
        "UPDATE agents SET repo_root = ?, repo_remote = ?, repo_path = ? WHERE id = ?",
        (where.get("root"), where.get("remote"), where.get("path"), agent),
    )


@_on("heinzel.renamed")
def _renamed(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE agents SET name = ? WHERE id = ?", (e.data["name"], agent))


def _flag(column: str, value: int) -> Handler:
    def handler(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
        db.execute(f"UPDATE agents SET {column} = ? WHERE id = ?", (value, agent))
        if "next_due" in e.data:
            db.execute("UPDATE agents SET next_due = ? WHERE id = ?", (e.data["next_due"], agent))

    return handler


_HANDLERS["heinzel.paused"] = _flag("paused", 1)
_HANDLERS["heinzel.unpaused"] = _flag("paused", 0)
_HANDLERS["heinzel.retired"] = _flag("retired", 1)
_HANDLERS["heinzel.unretired"] = _flag("retired", 0)


def _contract(db: sqlite3.Connection, agent: str, d: dict[str, Any], version: int) -> None:
    db.execute(
        "UPDATE agents SET contract_version = ?, contract_fingerprint = ?, assets = ?, inputs = ? WHERE id = ?",
        (version, d["contract_fingerprint"], _json(d.get("assets", [])), _json(d.get("inputs", {})), agent),
    )
    db.execute("DELETE FROM assets WHERE agent = ?", (agent,))
    db.executemany("INSERT OR IGNORE INTO assets VALUES (?, ?)", [(agent, a) for a in d.get("assets", [])])
    inputs = d.get("inputs", {})
    db.execute(
        f"DELETE FROM watched WHERE agent = ? AND input NOT IN ({','.join('?' * len(inputs))})", (agent, *inputs)
    )
    db.executemany(
        "INSERT INTO watched (agent, input, sources) VALUES (?, ?, ?)"
        " ON CONFLICT (agent, input) DO UPDATE SET sources = excluded.sources",
        [(agent, name, _json(sources)) for name, sources in inputs.items()],
    )


@_on("contract.proposed")
def _proposed(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute("UPDATE agents SET contract_name = ? WHERE id = ?", (d["name"], agent))
    _contract(db, agent, d, 1)
    db.execute(
        "INSERT OR REPLACE INTO versions VALUES (?, 1, ?, ?, NULL, 0, ?)",
        (agent, d["contract_fingerprint"], d["source_fingerprint"], e.ts),
    )


@_on("contract.approved")
def _approved(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE agents SET approved = 1, next_due = ? WHERE id = ?", (e.data.get("next_due"), agent))
    db.execute("UPDATE versions SET approved = 1 WHERE agent = ? AND version = ?", (agent, e.data["version"]))


@_on("contract.amended")
def _amended(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    _contract(db, agent, d, d["version"])
    db.execute("UPDATE agents SET approved = 1, next_due = ? WHERE id = ?", (d.get("next_due"), agent))
    db.execute(
        "INSERT OR REPLACE INTO versions VALUES (?, ?, ?, ?, ?, 1, ?)",
        (agent, d["version"], d["contract_fingerprint"], d["source_fingerprint"], d["amendment_id"], e.ts),
    )
    db.execute(
        "UPDATE amendments SET status = 'approved', version = ? WHERE agent = ? AND amendment_id = ?",
        (d["version"], agent, d["amendment_id"]),
    )


@_on("contract.refreshed")
def _refreshed(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute("UPDATE agents SET next_due = ? WHERE id = ?", (d.get("next_due"), agent))
    db.execute(
        "UPDATE versions SET source_fingerprint = ? WHERE agent = ? AND version = ?",
        (d["source_fingerprint"], agent, d["version"]),
    )


@_on("amendment.proposed")
def _amendment(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute(
        "INSERT OR REPLACE INTO amendments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', NULL, ?)",
        (agent, d["amendment_id"], e.seq, d["by"], d["base_version"], d["contract_fingerprint"],
         d["source_fingerprint"], d.get("sentence"), _json(d.get("widens", [])), e.ts),
    )  # fmt: skip


def _amendment_status(status: str) -> Handler:
    def handler(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
        db.execute(
            "UPDATE amendments SET status = ? WHERE agent = ? AND amendment_id = ?",
            (status, agent, e.data["amendment_id"]),
        )

    return handler


_HANDLERS["amendment.refused"] = _amendment_status("refused")
_HANDLERS["amendment.declined"] = _amendment_status("declined")


# --- turns ---------------------------------------------------------------------------------------


@_on("turn.started")
def _turn_started(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    if e.turn is None:
        return  # a turn event without a turn id has nothing to attach to
    d = e.data
    db.execute(
        "INSERT OR REPLACE INTO turns (agent, turn, seq, cause, causes, contract_version, parent_turn, started_at,"
        " status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running')",
        (agent, e.turn, e.seq, d["cause"], _json(d.get("causes", [])), d.get("contract_version"),
         d.get("parent_turn"), e.ts),
    )  # fmt: skip
    db.execute("UPDATE agents SET last_turn = ?, last_turn_at = ? WHERE id = ?", (e.turn, e.ts, agent))
    if d.get("parent_turn"):
        db.execute(
            "UPDATE drafts SET status = 'superseded' WHERE agent = ? AND turn = ? AND +status = 'pending'",
            (agent, d["parent_turn"]),
        )


@_on("turn.step")
def _turn_step(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE turns SET step = ? WHERE agent = ? AND turn = ?", (e.data["step"], agent, e.turn))
    if e.data.get("inputs"):
        _fingerprints(db, agent, e.data["inputs"])


def _fingerprints(db: sqlite3.Connection, agent: str, inputs: dict[str, str]) -> None:
    db.executemany(
        "INSERT INTO watched (agent, input, fingerprint) VALUES (?, ?, ?)"
        " ON CONFLICT (agent, input) DO UPDATE SET fingerprint = excluded.fingerprint",
        [(agent, name, fp) for name, fp in inputs.items()],
    )


@_on("spine.compacted")
def _compacted(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    if e.data.get("inputs"):  # what the folded turns last saw of each input
        _fingerprints(db, agent, e.data["inputs"])


@_on("turn.waiting")
def _waiting(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    if e.turn is None:
        return
    d, on = e.data, e.data.get("on") or {}
    db.execute("UPDATE turns SET status = 'waiting', step = ? WHERE agent = ? AND turn = ?", (d["step"], agent, e.turn))
    db.execute(
        "INSERT OR REPLACE INTO waits VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (agent, e.turn, d["step"], d.get("until"), on.get("kind"), on.get("input"), on.get("fingerprint_not"),
         on.get("key"), e.ts),
    )  # fmt: skip


@_on("turn.resumed")
def _resumed(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE turns SET status = 'running' WHERE agent = ? AND turn = ?", (agent, e.turn))
    db.execute("DELETE FROM waits WHERE agent = ? AND turn = ?", (agent, e.turn))


def _end_turn(db: sqlite3.Connection, agent: str, e: Envelope, status: str, disposition: str, cause: str) -> None:
    d = e.data
    if e.turn is not None:
        db.execute(
            "INSERT INTO turns (agent, turn, seq, cause, causes, started_at, status, disposition, reason, usd,"
            " finished_at, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent, turn) DO UPDATE SET"
            " status = excluded.status, disposition = excluded.disposition, reason = excluded.reason,"
            " usd = excluded.usd, finished_at = excluded.finished_at, report = excluded.report",
            (agent, e.turn, e.seq, cause, _json(d.get("causes", [])), e.ts, status, disposition, d.get("reason"),
             d.get("usd", 0.0), e.ts, d.get("report")),
        )  # fmt: skip
        db.execute("DELETE FROM waits WHERE agent = ? AND turn = ?", (agent, e.turn))
        db.execute(
            "UPDATE keys SET kind = ?, seq = ? WHERE agent = ? AND turn = ? AND kind = 'turn.started'",
            (e.kind, e.seq, agent, e.turn),
        )
    db.execute(
        "UPDATE agents SET last_turn = coalesce(?, last_turn), last_turn_at = CASE WHEN ? IS NULL THEN last_turn_at"
        " ELSE ? END, next_due = CASE WHEN ? THEN ? ELSE next_due END WHERE id = ?",
        (e.turn, e.turn, e.ts, "next_due" in d, d.get("next_due"), agent),
    )
    if d.get("inputs"):
        _fingerprints(db, agent, d["inputs"])
    _cost(db, agent, e, cause, d.get("usd", 0.0))


@_on("turn.finished")
def _finished(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    _end_turn(db, agent, e, "finished", e.data["disposition"], e.data["cause"])


@_on("turn.skipped")
def _skipped(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    causes = e.data.get("causes") or ["schedule"]
    _end_turn(db, agent, e, "skipped", "skipped", causes[0])


# --- effects, drafts, lessons, questions, usage --------------------------------------------------


def _effect(status: str) -> Handler:
    def handler(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
        d = e.data
        db.execute(
            "INSERT INTO effects VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (agent, key) DO UPDATE SET"
            " status = excluded.status, turn = excluded.turn, hash = coalesce(excluded.hash, hash),"
            " effect = coalesce(excluded.effect, effect)",
            (agent, d["key"], d.get("effect"), status, e.turn, d.get("hash")),
        )

    return handler


_HANDLERS["effect.started"] = _effect("started")
_HANDLERS["effect.done"] = _effect("done")
_HANDLERS["effect.failed"] = _effect("failed")


@_on("draft.placed")
def _draft(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute(
        "UPDATE drafts SET status = 'superseded' WHERE agent = ? AND asset = ? AND +status = 'pending'",
        (agent, d["asset"]),
    )
    db.execute(
        "INSERT OR REPLACE INTO drafts VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', NULL)",
        (agent, d["key"], e.turn, d["asset"], d["hash"], d["contract_version"], d.get("place"), e.ts),
    )


@_on("approval.observed")
def _approval(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute(
        "UPDATE drafts SET status = ?, approver = ? WHERE agent = ? AND key = ?",
        (d["decision"], d.get("approver"), agent, d["key"]),
    )


@_on("lesson.recorded")
def _lesson(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute(
        "INSERT OR REPLACE INTO lessons VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
        (agent, d["lesson_id"], e.seq, e.turn, d["sentence"], _json(d.get("hunks", [])), e.ts),
    )


@_on("lesson.dismissed")
def _dismissed(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE lessons SET dismissed = 1 WHERE agent = ? AND lesson_id = ?", (agent, e.data["lesson_id"]))


@_on("question.asked")
def _asked(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    d = e.data
    db.execute(
        "INSERT OR IGNORE INTO questions VALUES (?, ?, ?, ?, ?, 0)", (agent, d["key"], e.turn, d["question"], e.ts)
    )


@_on("question.answered")
def _answered(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE questions SET answered = 1 WHERE agent = ? AND key = ?", (agent, e.data["key"]))


@_on("usage")
def _usage(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    _cost(db, agent, e, e.data["kind"], e.data.get("usd", 0.0))


@_on("summary.written")
def _summary(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE agents SET last_summary_seq = ? WHERE id = ?", (e.seq, agent))


# --- derived per agent ---------------------------------------------------------------------------

# `+status` keeps SQLite on the (agent, …) primary key: the drafts_status index would scan the pending
# drafts of every agent, which grows with the number of agents on every append.
_SETTLE = """
UPDATE agents SET
    pending_draft = (SELECT key FROM drafts WHERE agent = :a AND +status = 'pending'
                     ORDER BY placed_at DESC, key DESC LIMIT 1),
    pending_question = (SELECT key FROM questions WHERE agent = :a AND answered = 0 ORDER BY asked_at, key LIMIT 1),
    pending_amendment = (SELECT amendment_id FROM amendments WHERE agent = :a AND status = 'pending'
                         ORDER BY seq LIMIT 1)
WHERE id = :a;
"""

_STATE = """
UPDATE agents SET state = CASE
    WHEN retired THEN 'retired'
    WHEN NOT approved THEN 'proposed'
    WHEN paused THEN 'paused'
    WHEN EXISTS (SELECT 1 FROM turns WHERE agent = :a AND status = 'running') THEN 'awake'
    WHEN EXISTS (SELECT 1 FROM turns WHERE agent = :a AND status = 'waiting')
         OR pending_draft IS NOT NULL OR pending_question IS NOT NULL OR pending_amendment IS NOT NULL THEN 'waiting'
    ELSE 'asleep' END
WHERE id = :a;
"""

_DUE = """
UPDATE agents SET due_at = CASE WHEN state IN ('proposed', 'paused', 'retired') THEN NULL ELSE next_due END
WHERE id = :a
"""


def settle(db: sqlite3.Connection, agent: str) -> None:
    for statement in (_SETTLE, _STATE, _DUE):
        db.execute(statement, {"a": agent})
