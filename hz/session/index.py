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
`turns/lessons/amendments/versions/questions/drafts(...)`, an agent page's (`hz.session.page_queries`);
maintenance: `refresh(full=)`, `rebuild(processes=)`, `catch_up(agent)`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from hz.fsio import private_dir
from hz.session.index_damage import DamagedIndex, check_file, check_schema, damage_of, set_aside, tell
from hz.session.lock import SPINE, clear_pending, pending, try_lock
from hz.session.page_queries import PageQueries
from hz.session.queries import Row
from hz.session.schema import SCHEMA, SCHEMA_VERSION, TABLES

if TYPE_CHECKING:
    from hz.session.envelope import Envelope

# Reading spines and folding events (hz.session.spine, .fold, .projection) is imported where a spine is
# replayed, not here: an idle tick opens the index, finds nothing pending and never pays for them.

INDEX = "index.sqlite"
BATCH_S = 2.0  # how long `Index.batched` keeps its transaction open before it commits and begins another
BATCH_GAP_S = 0.12  # then the index stays free this long: past the 0.1 s a waiting process sleeps between tries
__all__ = ["INDEX", "Index", "Row"]


class Index(PageQueries):
    def __init__(self, root: Path, db: sqlite3.Connection, inode: int | None = None) -> None:
        self.root = root
        self.db = db
        self.inode = inode  # of the file opened: what may be set aside if it turns out damaged
        self._batch_until: float | None = None  # inside `batched`: when its open transaction is committed

    @classmethod
    def open(cls, root: Path, *, refresh: bool = True) -> Index:
        """Open (creating or rebuilding as needed) the index of the spines under `root`.

        A damaged file is set aside and a new one rebuilt, with a line on stderr (`hz.session.index_damage`)."""
        private_dir(root)
        path = root / INDEX
        try:
            return cls._open(root, path, refresh=refresh)
        except DamagedIndex as damage:
            tell(path, damage.why, set_aside(path, damage.inode))
        return cls._open(root, path, refresh=refresh)

    @classmethod
    def _open(cls, root: Path, path: Path, *, refresh: bool) -> Index:
        inode = check_file(path)
        db = sqlite3.connect(path, isolation_level=None, timeout=10.0, check_same_thread=False)
        db.row_factory = sqlite3.Row
        index = cls(root, db, inode)
        try:
            index._prepare(path)
            index.inode = os.lstat(path).st_ino  # sqlite made the file if there was none
            if refresh:
                index.refresh()
        except sqlite3.DatabaseError as exc:
            db.close()
            if (why := damage_of(exc)) is None:
                raise
            raise DamagedIndex(why, inode) from exc
        except DamagedIndex as damage:
            db.close()
            damage.inode = inode
            raise
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
        current = self.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        if current:  # read before anything is written, so a file set aside is kept as it was found
            check_schema(self.db)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(f"{path}{suffix}", 0o600)
        if not current:
            self.rebuild()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        if self._batch_until is not None:
            with self._savepoint():
                yield self.db
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextlib.contextmanager
    def batched(self) -> Iterator[None]:
        """The writes inside go in a few transactions, each open about `BATCH_S` at most, not one each.

        For a derivation (`hz.session.derived`): a fresh home's adoption caught up each new agent in a
        transaction of its own, and every commit wrote the same pages of the index again into its log, a
        tenth of what an agent cost. Each write is a savepoint within the open transaction, so one that
        fails is undone alone as before; the transaction is committed once it has been open `BATCH_S`
        (then the index is left free `BATCH_GAP_S`, so another process waits for it about `BATCH_S` at
        most: a derivation costs 6% more past 2 s) and at the end. An error leaving the block rolls back
        what is not committed yet; the caller forgets what was (`refresh(full=True)`)."""
        if self._batch_until is not None:
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        self._batch_until = time.monotonic() + BATCH_S
        try:
            yield
        except BaseException:
            self._batch_until = None
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        self._batch_until = None
        self.db.execute("COMMIT")

    @contextlib.contextmanager
    def _savepoint(self) -> Iterator[None]:
        self.db.execute("SAVEPOINT write")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK TO write")
            self.db.execute("RELEASE write")
            raise
        self.db.execute("RELEASE write")
        if self._batch_until is not None and time.monotonic() >= self._batch_until:
            self.db.execute("COMMIT")
            # A process waiting for the index retries every 0.1 s at most (SQLite's busy handler); a BEGIN
            # right after the COMMIT would take the lock again before it woke, for the whole derivation.
            time.sleep(BATCH_GAP_S)
            self.db.execute("BEGIN IMMEDIATE")
            self._batch_until = time.monotonic() + BATCH_S

    # --- keeping up with the spines ----------------------------------------------------------------

    def rebuild(self, *, processes: int | None = None) -> int:
        """Drop every table and replay every spine; returns the number of agents.

        `processes` forces how many worker processes read and fold the spines (see
        `hz.session.replay`); by default they are used only when there are many spines."""
        from hz.session.replay import Replay, processes_for
        from hz.session.rows import write_flat

        with self._tx() as db:  # taken first: a writer appending now waits, then catches up what we missed
            agents = self.spine_ids()
            with Replay(str(self.root), agents, processes_for(len(agents), processes)) as replay:
                indexes = self._recreate(db)  # while the workers already read
                for rows in replay:
                    write_flat(db, rows)
            for statement in indexes:  # built once over all rows: cheaper than kept up row by row
                db.execute(statement)
        # Fold the rebuild's log into the file now, not inside the next writer's transaction.
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return len(agents)

    def _recreate(self, db: sqlite3.Connection) -> list[str]:
        """Empty tables of the current schema; returns the index statements, to run after the rows."""
        for table in TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        statements = [st for st in SCHEMA.split(";") if st.strip()]
        indexes = [st for st in statements if st.strip().startswith("CREATE INDEX")]
        for statement in statements:
            if statement not in indexes:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return indexes

    def spine_ids(self) -> list[str]:
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return []
        base = str(self.root)  # plain strings: pathlib costs more than the stat for 10,000 spines
        # lexists, not isfile: a spine that is a link or a FIFO is still an agent's, read as frozen
        return sorted(n for n in names if n.startswith("hz-") and os.path.lexists(os.path.join(base, n, SPINE)))

    def refresh(self, *, full: bool = False) -> int:
        """Catch up dirty agents (after a crash), or with `full` every spine whose size moved."""
        if full:
            stored = {r["agent"]: r["size"] for r in self.db.execute("SELECT agent, size FROM spines")}
            present = self.spine_ids()
            changed = [a for a in present if stored.get(a) != os.lstat(self.root / a / SPINE).st_size]
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

    def catch_up(self, agent: str, written: bytes | None = None) -> int:
        """Read the new lines of one spine; rebuild its rows when it no longer continues what we saw.
        `written`: the whole spine, as this process just wrote it (a derivation's new agent), read from
        these bytes instead of the file when the index knows nothing of the agent yet."""
        with self._tx() as db:
            row = db.execute("SELECT size, last_seq, head FROM spines WHERE agent = ?", (agent,)).fetchone()
            if row is None:  # an agent new to the index (no row of it anywhere: rows go in with this one)
                return self._replay(db, agent, 0, None, 0, fresh=True, known=False, written=written)
            return self._replay(db, agent, row["size"], row["head"], row["last_seq"], fresh=False)

    def replay(self, agent: str) -> int:
        """Rebuild one agent's rows from its whole spine (a break found somewhere the index did not look)."""
        with self._tx() as db:
            return self._replay(db, agent, 0, None, 0, fresh=True)

    def recheck(self, agent: str) -> str | None:
        """Read a broken spine again (the user may have restored the line): where it breaks now, or None."""
        self.replay(agent)
        spine = self.spine_state(agent)
        return None if spine is None else spine["problem"]

    def _replay(
        self,
        db: sqlite3.Connection,
        agent: str,
        offset: int,
        head: str | None,
        last_seq: int,
        *,
        fresh: bool,
        known: bool = True,
        written: bytes | None = None,
    ) -> int:
        """Apply a spine's lines from `offset`; `fresh` starts the agent over from nothing (`known`: the
        index may hold rows of it to forget first). `written`: the spine's bytes, when `fresh` (the same
        parse as a read of the file, without reading it back)."""
        from hz.session import projection
        from hz.session.replay import spine_rows
        from hz.session.rows import write_rows
        from hz.session.spine import parse_spine, read_spine

        path = self.root / agent / SPINE
        if not fresh and (not path.exists() or path.stat().st_size < offset):
            return self._replay(db, agent, 0, None, 0, fresh=True)
        if fresh and written is not None:
            read = parse_spine(written)
        else:
            read = read_spine(path, offset=offset, head=head, last_seq=last_seq)
        continues = not (read.broken_at is not None and read.end == offset and offset > 0)
        if not continues:  # the spine no longer starts with what we saw: start over for this agent
            return self._replay(db, agent, 0, None, 0, fresh=True)
        if fresh:  # from nothing: compute the rows in memory, insert them at once
            if known:
                self._forget(db, agent)
            write_rows(db, spine_rows(agent, read))
            return len(read.events)
        for event in read.events:
            projection.apply(db, agent, event)
        projection.settle(db, agent)
        db.execute(
            "INSERT OR REPLACE INTO spines VALUES (?, ?, ?, ?, ?, ?)",
            (agent, read.end, read.last_seq, read.head, read.broken_at, read.break_problem),
        )
        return len(read.events)

    def _forget(self, db: sqlite3.Connection, agent: str) -> None:
        for table in TABLES:
            column = "id" if table == "agents" else "agent"
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (agent,))

    def record(self, agent: str, event: Envelope, size: int, head: str) -> None:
        """Apply one freshly appended line (a writer's listener); fall back to catching up on any gap."""
        from hz.session import projection

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
