"""How the events of an agent and its contract change the index: the agent's row, its versions, amendments,
assets and watched inputs."""

from __future__ import annotations

import sqlite3
from typing import Any

from hz.session.envelope import Envelope
from hz.session.projection_handler import Handler, as_json, registrar

HANDLERS: dict[str, Handler] = {}
_on = registrar(HANDLERS)


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


HANDLERS["heinzel.paused"] = _flag("paused", 1)
HANDLERS["heinzel.unpaused"] = _flag("paused", 0)
HANDLERS["heinzel.retired"] = _flag("retired", 1)
HANDLERS["heinzel.unretired"] = _flag("retired", 0)


def _contract(db: sqlite3.Connection, agent: str, d: dict[str, Any], version: int) -> None:
    db.execute(
        "UPDATE agents SET contract_version = ?, contract_fingerprint = ?, assets = ?, inputs = ? WHERE id = ?",
        (version, d["contract_fingerprint"], as_json(d.get("assets", [])), as_json(d.get("inputs", {})), agent),
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
        [(agent, name, as_json(sources)) for name, sources in inputs.items()],
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
         d["source_fingerprint"], d.get("sentence"), as_json(d.get("widens", [])), e.ts),
    )  # fmt: skip


def _amendment_status(status: str) -> Handler:
    def handler(db: sqlite3.Connection, agent: str, e: Envelope) -> None:
        db.execute(
            "UPDATE amendments SET status = ? WHERE agent = ? AND amendment_id = ?",
            (status, agent, e.data["amendment_id"]),
        )

    return handler


HANDLERS["amendment.refused"] = _amendment_status("refused")
HANDLERS["amendment.declined"] = _amendment_status("declined")
