"""How what a turn leaves behind changes the index: effects, drafts and their approvals, lessons, questions,
usage and summaries."""

from __future__ import annotations

import sqlite3

from hz.session.envelope import Envelope
from hz.session.projection_handler import Handler, add_cost, as_json, registrar

HANDLERS: dict[str, Handler] = {}
_on = registrar(HANDLERS)


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


HANDLERS["effect.started"] = _effect("started")
HANDLERS["effect.done"] = _effect("done")
HANDLERS["effect.failed"] = _effect("failed")


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
        (agent, d["lesson_id"], e.seq, e.turn, d["sentence"], as_json(d.get("hunks", [])), e.ts),
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
    add_cost(db, agent, e, e.data["kind"], e.data.get("usd", 0.0))


@_on("summary.written")
def _summary(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    db.execute("UPDATE agents SET last_summary_seq = ? WHERE id = ?", (e.seq, agent))
