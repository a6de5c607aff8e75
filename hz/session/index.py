"""The derived index `$HZ_HOME/heinzel/index.sqlite` (WAL): everything the list and the tick ask for.

Never authoritative: every row comes from spine events through `hz.session.projection`, and deleting
the file loses nothing. Per spine it keeps the byte size, last seq and head hash it has read, so
catching up reads only the new lines and notices when a spine no longer continues what it saw (then
that agent's rows are rebuilt). Every spine writer leaves a mark in `<root>/.pending/` before it
appends (`hz.session.spine.mark_pending`), cleared once the index has caught up under the lock, so
opening the index catches up exactly the spines someone wrote to (after a crash too) instead of
looking at every spine. A different `SCHEMA_VERSION` drops and rebuilds everything.

Plain sqlite3 and orjson only: the idle tick imports this without pydantic.

Queries (stable API): `agents(...)` with filters, `agent(name_or_id)`, `due(now)`, `waits_due(now)`,
`waits_on(kind)`, `watched()`, `key_kind(agent, key)`, `open_effects(agent)`, `cost_on(day)`,
`turns/lessons/amendments/versions/questions/drafts(...)`; maintenance: `refresh(full=)`, `rebuild()`,
`catch_up(agent)`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.fsio import private_dir
from hz.session import projection
from hz.session.envelope import Envelope
from hz.session.fold import Fold, write_rows
from hz.session.schema import SCHEMA, SCHEMA_VERSION, TABLES
from hz.session.spine import SPINE, SpineRead, clear_pending, pending, read_spine, try_lock

INDEX = "index.sqlite"
Row = dict[str, Any]


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Index:
    def __init__(self, root: Path, db: sqlite3.Connection) -> None:
        self.root = root
        self.db = db

    @classmethod
    def open(cls, root: Path, *, refresh: bool = True) -> Index:
        """Open (creating or rebuilding as needed) the index of the spines under `root`."""
        private_dir(root)
        path = root / INDEX
        db = sqlite3.connect(path, isolation_level=None, timeout=10.0, check_same_thread=False)
        db.row_factory = sqlite3.Row
        index = cls(root, db)
        try:
            index._prepare(path)
            if refresh:
                index.refresh()
        except BaseException:
            db.close()
            raise
        return index

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _prepare(self, path: Path) -> None:
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(f"{path}{suffix}", 0o600)
        if self.db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            self.rebuild()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- keeping up with the spines ----------------------------------------------------------------

    def rebuild(self) -> int:
        """Drop every table and replay every spine; returns the number of agents."""
        with self._tx() as db:
            for table in TABLES:
                db.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            agents = self.spine_ids()
            batch: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
            for n, agent in enumerate(agents, start=1):
                for table, rows in self._fold(agent, read_spine(self.root / agent / SPINE)).items():
                    batch[table] += rows
                if n % 1000 == 0:
                    write_rows(db, batch)
                    batch.clear()
            write_rows(db, batch)
        return len(agents)

    def _fold(self, agent: str, read: SpineRead) -> dict[str, list[tuple[Any, ...]]]:
        """The rows of one agent replayed from nothing, its `spines` row included."""
        fold = Fold(agent)
        fold.apply_all(read.events)
        fold.settle()
        rows = fold.rows()
        problem = next((p.render() for p in read.problems if p.kind == "broken"), None)
        rows["spines"] = [(agent, read.end, read.last_seq, read.head, read.broken_at, problem)]
        return rows

    def spine_ids(self) -> list[str]:
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return []
        return sorted(n for n in names if n.startswith("hz-") and os.path.isfile(self.root / n / SPINE))

    def refresh(self, *, full: bool = False) -> int:
        """Catch up dirty agents (after a crash), or with `full` every spine whose size moved."""
        if full:
            stored = {r["agent"]: r["size"] for r in self.db.execute("SELECT agent, size FROM spines")}
            present = self.spine_ids()
            changed = [a for a in present if stored.get(a) != (self.root / a / SPINE).stat().st_size]
            gone = set(stored) - set(present)
        else:
            changed, gone = pending(self.root), set()
        for agent in gone:
            with self._tx() as db:
                self._forget(db, agent)
        return sum(self._settle_dirty(agent) for agent in changed)

    def _settle_dirty(self, agent: str) -> int:
        """Catch up; clear the pending mark only when no writer holds the spine (else that writer will)."""
        directory = self.root / agent
        fd = try_lock(directory) if directory.is_dir() else None
        try:
            count = self.catch_up(agent) if directory.is_dir() else 0
            if fd is not None or not directory.is_dir():
                clear_pending(directory)
            return count
        finally:
            if fd is not None:
                os.close(fd)

    def catch_up(self, agent: str) -> int:
        """Read the new lines of one spine; rebuild its rows when it no longer continues what we saw."""
        with self._tx() as db:
            row = db.execute("SELECT size, last_seq, head FROM spines WHERE agent = ?", (agent,)).fetchone()
            if row is None:
                return self._replay(db, agent, 0, None, 0, fresh=True)
            return self._replay(db, agent, row["size"], row["head"], row["last_seq"], fresh=False)

    def _replay(
        self,
        db: sqlite3.Connection,
        agent: str,
        offset: int,
        head: str | None,
        last_seq: int,
        *,
        fresh: bool,
    ) -> int:
        """Apply a spine's lines from `offset`; `fresh` starts the agent over from nothing."""
        path = self.root / agent / SPINE
        if not fresh and (not path.exists() or path.stat().st_size < offset):
            return self._replay(db, agent, 0, None, 0, fresh=True)
        read = read_spine(path, offset=offset, head=head, last_seq=last_seq)
        continues = not (read.broken_at is not None and read.end == offset and offset > 0)
        if not continues:  # the spine no longer starts with what we saw: start over for this agent
            return self._replay(db, agent, 0, None, 0, fresh=True)
        if fresh:  # from nothing: compute the rows in memory, insert them at once
            self._forget(db, agent)
            write_rows(db, self._fold(agent, read))
            return len(read.events)
        for event in read.events:
            projection.apply(db, agent, event)
        projection.settle(db, agent)
        problem = next((p.render() for p in read.problems if p.kind == "broken"), None)
        db.execute(
            "INSERT OR REPLACE INTO spines VALUES (?, ?, ?, ?, ?, ?)",
            (agent, read.end, read.last_seq, read.head, read.broken_at, problem),
        )
        return len(read.events)

    def _forget(self, db: sqlite3.Connection, agent: str) -> None:
        for table in TABLES:
            column = "id" if table == "agents" else "agent"
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (agent,))

    def record(self, agent: str, event: Envelope, size: int, head: str) -> None:
        """Apply one freshly appended line (a writer's listener); fall back to catching up on any gap."""
        with self._tx() as db:
            row = db.execute("SELECT size, last_seq, head FROM spines WHERE agent = ?", (agent,)).fetchone()
            if row is None or row["last_seq"] != event.seq - 1 or row["head"] != event.prev:
                resume = (0, None, 0, True) if row is None else (row["size"], row["head"], row["last_seq"], False)
                self._replay(db, agent, resume[0], resume[1], resume[2], fresh=resume[3])
                return
            projection.apply(db, agent, event)
            db.execute(
                "UPDATE spines SET size = ?, last_seq = ?, head = ? WHERE agent = ?", (size, event.seq, head, agent)
            )
            projection.settle(db, agent)

    # --- queries ---------------------------------------------------------------------------------

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
    ) -> list[Row]:
        """The list: one row per agent with today's cost (`today` is a UTC day `YYYY-MM-DD`)."""
        where: list[str] = ["1"]
        params: dict[str, Any] = {"today": today or _iso(datetime.now(UTC))[:10]}
        if state:
            where.append("a.state = :state")
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
        return self._rows(
            "SELECT a.*, (SELECT coalesce(sum(c.usd), 0) FROM costs c WHERE c.agent = a.id AND c.day = :today)"
            f" AS cost_today FROM agents a WHERE {' AND '.join(where)} ORDER BY a.namespace, a.name",
            params,
        )

    def agent(self, name_or_id: str, namespace: str | None = None) -> Row | None:
        if name_or_id.startswith("hz-"):
            rows = self._rows("SELECT * FROM agents WHERE id = ?", (name_or_id,))
        elif namespace:
            rows = self._rows("SELECT * FROM agents WHERE name = ? AND namespace = ?", (name_or_id, namespace))
        else:
            rows = self._rows("SELECT * FROM agents WHERE name = ? ORDER BY namespace", (name_or_id,))
        return rows[0] if rows else None

    def named(self, name: str) -> list[Row]:
        return self._rows("SELECT * FROM agents WHERE name = ? ORDER BY namespace", (name,))

    def due(self, now: datetime) -> list[Row]:
        """Agents whose next slot is at or before `now` and that may be woken: one indexed range query."""
        return self._rows(
            "SELECT id, name, namespace, state, next_due FROM agents WHERE due_at <= ? ORDER BY due_at, id",
            (_iso(now),),
        )

    def waits_due(self, now: datetime) -> list[Row]:
        return self._rows("SELECT * FROM waits WHERE until <= ? ORDER BY until, agent", (_iso(now),))

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
