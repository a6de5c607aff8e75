"""How the events of a turn change the index: its row, its waits, the inputs it saw and what it cost."""

from __future__ import annotations

import sqlite3

from hz.session.envelope import Envelope
from hz.session.projection_handler import Handler, add_cost, as_json, registrar

HANDLERS: dict[str, Handler] = {}
_on = registrar(HANDLERS)


@_on("turn.started")
def _turn_started(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    if e.turn is None:
        return  # a turn event without a turn id has nothing to attach to
    d = e.data
    db.execute(
        "INSERT OR REPLACE INTO turns (agent, turn, seq, cause, causes, contract_version, parent_turn, started_at,"
        " status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running')",
        (agent, e.turn, e.seq, d["cause"], as_json(d.get("causes", [])), d.get("contract_version"),
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
            (agent, e.turn, e.seq, cause, as_json(d.get("causes", [])), e.ts, status, disposition, d.get("reason"),
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
    add_cost(db, agent, e, cause, d.get("usd", 0.0))


@_on("turn.finished")
def _finished(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    _end_turn(db, agent, e, "finished", e.data["disposition"], e.data["cause"])


@_on("turn.skipped")
def _skipped(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
    causes = e.data.get("causes") or ["schedule"]
    _end_turn(db, agent, e, "skipped", "skipped", causes[0])
