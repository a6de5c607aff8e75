"""The index's read side: every question the list, the show page and the tick ask, as plain SQL.

Mixed into `hz.session.index.Index`; each method is one query over rows derived from the spines.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

from hz.session.schema import TABLES

Row = dict[str, Any]
ListLine = tuple[str, str, str, int | None, str | None, int, str]


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Queries:
    db: sqlite3.Connection

    def _rows(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[Row]:
        cursor = self.db.cursor()
        cursor.row_factory = None  # plain tuples zipped with the names: several times faster than sqlite3.Row
        cursor.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, values, strict=True)) for values in cursor]

    def agents(
        self,
        *,
        state: str | None = None,
        artifact: str | None = None,
        contract: str | None = None,
        version: int | None = None,
        today: str | None = None,
        columns: tuple[str, ...] | None = None,
    ) -> list[Row]:
        """The list: one row per agent with today's cost (`today` is a UTC day `YYYY-MM-DD`).

        `columns` narrows the agent columns returned (fewer is faster)."""
        where, params = _agent_filter(state, artifact, contract, version)
        chosen = "a.*" if columns is None else ", ".join(f"a.{c}" for c in columns if c.isidentifier())
        rows = self._rows(f"SELECT {chosen} FROM agents a WHERE {where} ORDER BY a.namespace, a.name", params)
        spent = self.spent_on(today)
        for row in rows:
            row["cost_today"] = spent.get(row["id"], 0)
        return rows

    def agent_lines(
        self,
        *,
        state: str | None = None,
        artifact: str | None = None,
        contract: str | None = None,
        version: int | None = None,
    ) -> list[ListLine]:
        """What `hz heinzel list` prints, as plain tuples from one query (no dict per row), ordered like
        `agents`: (namespace, name, state, contract_version, due_at, pending, id), where `pending` has
        bit 1 set for a pending draft, 2 for an amendment and 4 for a question."""
        where, params = _agent_filter(state, artifact, contract, version)
        cursor = self.db.cursor()
        cursor.row_factory = None
        cursor.execute(
            "SELECT a.namespace, a.name, a.state, a.contract_version, a.due_at,"
            " (coalesce(a.pending_draft, '') != '') + 2 * (coalesce(a.pending_amendment, '') != '')"
            " + 4 * (coalesce(a.pending_question, '') != ''), a.id"
            f" FROM agents a WHERE {where} ORDER BY a.namespace, a.name",
            params,
        )
        return cursor.fetchall()

    def spent_on(self, today: str | None = None) -> dict[str, float]:
        """Agent id -> what it spent on that UTC day (default today), for the few agents that spent."""
        day = today or iso(datetime.now(UTC))[:10]
        return dict(self.db.execute("SELECT agent, sum(usd) FROM costs WHERE day = ? GROUP BY agent", (day,)))

    def agent(self, name_or_id: str, namespace: str | None = None) -> Row | None:
        if name_or_id.startswith("hz-"):
            rows = self._rows("SELECT * FROM agents WHERE id = ?", (name_or_id,))
        elif namespace:
            rows = self._rows("SELECT * FROM agents WHERE name = ? AND namespace = ?", (name_or_id, namespace))
        else:
            rows = self._rows("SELECT * FROM agents WHERE name = ? ORDER BY namespace", (name_or_id,))
        return rows[0] if rows else None

    def agents_of_contract(self, contract: str, namespace: str) -> list[Row]:
        """Every agent of a contract name in a namespace: one per repository that adopted it."""
        return self._rows(
            "SELECT * FROM agents WHERE namespace = ? AND coalesce(contract_name, name) = ? ORDER BY created_at, id",
            (namespace, contract),
        )

    def adopted(self) -> list[Row]:
        """Every adopted agent with what names its repository (`hz.heinzel.repository`)."""
        return self._rows(
            "SELECT id, origin, source, repo_root, repo_remote, repo_path FROM agents WHERE origin = 'adopted'"
        )

    def named(self, name: str) -> list[Row]:
        return self._rows("SELECT * FROM agents WHERE name = ? ORDER BY namespace", (name,))

    def due(self, now: datetime) -> list[Row]:
        """Agents whose next slot is at or before `now` and that may be woken: one indexed range query."""
        return self._rows(
            "SELECT id, name, namespace, state, next_due FROM agents WHERE due_at <= ? ORDER BY due_at, id",
            (iso(now),),
        )

    def waits_due(self, now: datetime) -> list[Row]:
        return self._rows("SELECT * FROM waits WHERE until <= ? ORDER BY until, agent", (iso(now),))

    def waits_on(self, kind: str) -> list[Row]:
        return self._rows("SELECT * FROM waits WHERE on_kind = ? ORDER BY since, agent", (kind,))

    def watched(self) -> list[Row]:
        return self._rows(
            "SELECT w.* FROM watched w JOIN agents a ON a.id = w.agent"
            " WHERE a.state NOT IN ('proposed', 'paused', 'retired') ORDER BY w.agent, w.input"
        )

    def key_kind(self, agent: str, key: str) -> str | None:
        """The kind of the latest event with this key: is it started, finished, skipped, done …?"""
        row = self.db.execute("SELECT kind FROM keys WHERE agent = ? AND key = ?", (agent, key)).fetchone()
        return None if row is None else str(row["kind"])

    def open_effects(self, agent: str) -> list[Row]:
        return self._rows("SELECT * FROM effects WHERE agent = ? AND status = 'started' ORDER BY key", (agent,))

    def cost_on(self, day: str) -> float:
        """What all agents of this machine's user spent on a UTC day (turns, skips and usage)."""
        row = self.db.execute("SELECT coalesce(sum(usd), 0) AS usd FROM costs WHERE day = ?", (day,)).fetchone()
        return float(row["usd"])

    def costs(self, agent: str) -> list[Row]:
        return self._rows("SELECT day, cause, usd FROM costs WHERE agent = ? ORDER BY day, cause", (agent,))

    def turns(self, agent: str, *, status: str | None = None) -> list[Row]:
        if status:
            return self._rows("SELECT * FROM turns WHERE agent = ? AND status = ? ORDER BY seq", (agent, status))
        return self._rows("SELECT * FROM turns WHERE agent = ? ORDER BY seq", (agent,))

    def running_turns(self) -> list[Row]:
        return self._rows("SELECT * FROM turns WHERE status IN ('running', 'waiting') ORDER BY agent, seq")

    def lessons(self, agent: str) -> list[Row]:
        return self._rows("SELECT * FROM lessons WHERE agent = ? ORDER BY seq", (agent,))

    def amendments(self, agent: str) -> list[Row]:
        return self._rows("SELECT * FROM amendments WHERE agent = ? ORDER BY seq", (agent,))

    def versions(self, agent: str) -> list[Row]:
        return self._rows("SELECT * FROM versions WHERE agent = ? ORDER BY version", (agent,))

    def questions(self, agent: str) -> list[Row]:
        return self._rows("SELECT * FROM questions WHERE agent = ? ORDER BY asked_at", (agent,))

    def drafts(self, *, status: str | None = "pending", agent: str | None = None) -> list[Row]:
        sql, params = "SELECT * FROM drafts WHERE 1", []
        if status:
            sql, params = sql + " AND status = ?", [status]
        if agent:
            sql, params = sql + " AND agent = ?", [*params, agent]
        return self._rows(sql + " ORDER BY placed_at, agent", tuple(params))

    def broken(self) -> list[Row]:
        """Spines whose chain breaks: what they still trust ends before `broken_seq`."""
        return self._rows("SELECT * FROM spines WHERE problem IS NOT NULL ORDER BY agent")

    def spine_state(self, agent: str) -> Row | None:
        rows = self._rows("SELECT * FROM spines WHERE agent = ?", (agent,))
        return rows[0] if rows else None

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every derived row, sorted: what the equality test of rebuilt and incremental compares."""
        return {
            table: sorted((tuple(r) for r in self.db.execute(f"SELECT * FROM {table}")), key=repr) for table in TABLES
        }


_BROKEN = "SELECT agent FROM spines WHERE problem IS NOT NULL"  # the partial index spines_broken


def _agent_filter(
    state: str | None, artifact: str | None, contract: str | None, version: int | None
) -> tuple[str, dict[str, Any]]:
    where: list[str] = ["1"]
    params: dict[str, Any] = {}
    if state == "frozen":  # shown for an agent whose spine breaks, whatever its rows say
        where.append(f"a.id IN ({_BROKEN})")
    elif state:
        where.append(f"a.state = :state AND a.id NOT IN ({_BROKEN})")
        params["state"] = state
    if artifact:
        where.append("a.id IN (SELECT agent FROM assets WHERE asset = :artifact)")
        params["artifact"] = artifact
    if contract:
        where.append("(a.contract_name = :contract OR a.name = :contract)")
        params["contract"] = contract
    if version is not None:
        where.append("a.contract_version = :version")
        params["version"] = version
    return " AND ".join(where), params
