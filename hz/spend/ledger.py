"""The day's spend ledger: one SQLite file that decides, across processes, whether a model request may go.

Each model request is a row: reserved (its worst case) before it leaves, settled (what the endpoint
reported) after. Today's spend is the sum of the settled amounts, and of the reserved ones still
unsettled, so a crash between the two leaves the worst case counted, never nothing. `reserve` reads
that sum and writes its row in one `BEGIN IMMEDIATE` transaction: two ticks can never both pass the
same remainder. The file is in WAL mode with `synchronous = FULL`, so a commit is one fsync of the log
and is on disk before `reserve` returns, hence before the request leaves.

The spine's `usage` and `turn.finished` events still record what each turn spent (the index's cost
rollups read those); the ledger only decides. A home from before the ledger has spent today without it:
when the file is first made, today's spend per agent is copied in from the index (`seed`), once.
"""

from __future__ import annotations

import math
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.fsio import FILE_MODE, private_dir

LEDGER = "spend.sqlite"
COMPANIONS = ("-wal", "-shm")  # sqlite's log and shared memory beside the ledger
SCHEMA_VERSION = 1
# A round-off allowance: a grant that equals the room left must pass whatever float sums gave.
EPSILON = 1e-9

# The sums `reserve` makes read these covering indexes alone, never the table: its transaction stays short
# however many requests the day already holds.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS reservations (
    id INTEGER PRIMARY KEY,
    agent TEXT NOT NULL,
    turn TEXT NOT NULL,
    runner TEXT NOT NULL,
    day TEXT NOT NULL,
    reserved_usd REAL NOT NULL,
    settled_usd REAL,
    flag TEXT
);
CREATE INDEX IF NOT EXISTS reservations_day ON reservations (day, agent, reserved_usd, settled_usd);
CREATE INDEX IF NOT EXISTS reservations_turn ON reservations (turn, reserved_usd, settled_usd);
CREATE INDEX IF NOT EXISTS reservations_flagged ON reservations (day, runner) WHERE flag = 'over-reported';
CREATE TABLE IF NOT EXISTS seeds (
    day TEXT NOT NULL,
    agent TEXT NOT NULL,
    usd REAL NOT NULL,
    PRIMARY KEY (day, agent)
);
"""

# What a row counts: its settlement once there is one, its reservation until then (a crash, or in flight).
_COUNTED = "coalesce(settled_usd, reserved_usd)"


class LedgerUnusable(HzError):
    """The ledger cannot be read or written: nothing may be spent until it can.

    Not a `sqlite3.DatabaseError`, on purpose: the store would take that for damage to its own index
    and set the (healthy) index aside, naming the wrong file, while the ledger stayed as it was."""


@contextmanager
def _guarded(path: Path) -> Iterator[None]:
    """sqlite's and the file system's failures on the ledger as one clear error that names it."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        raise LedgerUnusable(
            f"the spend ledger {path} cannot be used ({exc}); hz spends nothing until it can",
            hint=f"if it is damaged or not a regular file, move it and its {'/'.join(COMPANIONS)} files aside: "
            "the next command starts a new ledger from the index's record of today",
        ) from exc


def _check_regular(path: Path) -> None:
    """Only a regular file (or none yet) is a ledger: sqlite would follow a link, fail on a directory, or
    read a FIFO. The same holds for its `-wal` and `-shm`."""
    for candidate in (path, *(Path(f"{path}{suffix}") for suffix in COMPANIONS)):
        try:
            mode = os.lstat(candidate).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            raise OSError(f"{candidate.name} is not a regular file")


@dataclass(frozen=True)
class Limits:
    """The caps one request is reserved under, in USD."""

    turn_usd: float  # all requests of this turn together
    day_usd: float  # all of the user's agents today
    contract_day_usd: float | None = None  # this agent today, when its contract sets a cap


@dataclass(frozen=True)
class Refused:
    """Why a reservation was not granted: the cap that has too little room, its limit and what is gone."""

    cap: str  # turn | day | contract | over-reported
    limit_usd: float
    spent_usd: float
    needed_usd: float

    def detail(self) -> dict[str, Any]:
        """As a skip's `cap` field (hz.session.turn_payloads.CapSkip)."""
        return {
            "name": self.cap,
            "limit_usd": round(self.limit_usd, 6),
            "spent_usd": round(self.spent_usd, 6),
            "needed_usd": round(self.needed_usd, 6),
        }


@dataclass(frozen=True)
class Reserved:
    id: str
    usd: float


@dataclass(frozen=True)
class Spent:
    """What has gone, by scope, as the ledger counts it now."""

    day_usd: float
    agent_usd: float
    turn_usd: float


class Ledger:
    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path = path
        self._db = db
        self._lock = threading.Lock()  # one connection, used by a runner's threads too

    @classmethod
    def open(cls, folder: Path, seed: Callable[[], tuple[str, Mapping[str, float]]] | None = None) -> Ledger:
        """The ledger in `folder` (made private if new); `seed` gives (day, agent -> usd) for a new file."""
        private_dir(folder)
        path = folder / LEDGER
        with _guarded(path):
            _check_regular(path)
            # 0600 before sqlite sees it (its -wal follows); never through a link put in its place meanwhile
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, FILE_MODE)
            os.close(fd)
            db = sqlite3.connect(path, isolation_level=None, timeout=30.0, check_same_thread=False)
            try:
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = FULL")  # the commit is on disk before the request leaves
                ledger = cls(path, db)
                ledger._prepare(seed)
            except BaseException:
                db.close()
                raise
        return ledger

    def _prepare(self, seed: Callable[[], tuple[str, Mapping[str, float]]] | None) -> None:
        with self._transaction():
            if self._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                return
            # statement by statement: `executescript` would commit the open transaction first
            for statement in filter(str.strip, _SCHEMA.split(";")):
                self._db.execute(statement)
            if seed is not None:
                day, spent = seed()
                self._db.executemany(
                    "INSERT OR REPLACE INTO seeds (day, agent, usd) VALUES (?, ?, ?)",
                    [(day, agent, float(usd)) for agent, usd in spent.items() if usd > 0],
                )
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self._db.close()

    def _transaction(self, *, durable: bool = True) -> _Transaction:
        return _Transaction(self._db, self._lock, durable, self.path)

    def reserve(
        self, *, agent: str, turn: str, runner: str, day: str, limits: Limits, least: float, most: float
    ) -> Reserved | Refused:
        """Grant min(`most`, room) when at least `least` is left under every cap, in one transaction."""
        with self._transaction():
            if self._over_reported(runner, day):
                return Refused("over-reported", 0.0, 0.0, least)
            spent = self._spent(agent, turn, day)
            rooms = [
                ("turn", limits.turn_usd, spent.turn_usd),
                ("day", limits.day_usd, spent.day_usd),
            ]
            if limits.contract_day_usd is not None:
                rooms.append(("contract", limits.contract_day_usd, spent.agent_usd))
            cap, limit, gone = min(rooms, key=lambda r: r[1] - r[2])
            room = max(0.0, limit - gone)
            if room <= 0 or room + EPSILON < least:
                return Refused(cap, limit, gone, least)
            usd = min(most, room)
            cursor = self._db.execute(
                "INSERT INTO reservations (agent, turn, runner, day, reserved_usd) VALUES (?, ?, ?, ?, ?)",
                (agent, turn, runner, day, usd),
            )
            return Reserved(str(cursor.lastrowid), usd)

    def settle(self, reservation_id: str, usd: float, flag: str | None = None) -> None:
        """Replace a reservation by what was reported (an over-report is kept as reported, and flagged).

        Written without its own fsync: a killed process loses nothing (the write is in the OS already),
        and the next reservation's fsync of the log carries it to disk. Only a power cut in between can
        lose it, and then the reservation, at least as much as an honest report, stays counted.
        """
        # an amount no cost can be (nan, infinite, negative) leaves the reservation counted
        amount = usd if math.isfinite(usd) and usd >= 0 else None
        with self._transaction(durable=False):
            self._db.execute(
                "UPDATE reservations SET settled_usd = coalesce(?, reserved_usd), flag = ? WHERE id = ?",
                (amount, flag, int(reservation_id)),
            )

    def close_days(self, before: str) -> None:
        """Settle every reservation of a day before `before` that is still unsettled at what it reserved:
        once its day has ended, nobody learns its cost any more, and it is no longer in doubt. A late
        `settle` from a request still in flight across midnight replaces it with what was reported."""
        with self._transaction(durable=False):
            self._db.execute(
                "UPDATE reservations SET settled_usd = reserved_usd WHERE day < ? AND settled_usd IS NULL", (before,)
            )

    def spent(self, *, agent: str, turn: str, day: str) -> Spent:
        with self._lock, _guarded(self.path):
            return self._spent(agent, turn, day)

    def day_total(self, day: str) -> float:
        with self._lock, _guarded(self.path):
            return self._day(day)

    def turn_total(self, turn: str) -> float:
        """Everything this turn's requests cost, whatever process sent them: across its waits, resumes and
        crashes (a request a kill left unsettled counts at its reservation, as the caps count it)."""
        with self._lock, _guarded(self.path):
            (total,) = self._db.execute(
                f"SELECT coalesce(sum({_COUNTED}), 0) FROM reservations WHERE turn = ?", (turn,)
            ).fetchone()
            return float(total)

    def flags(self, *, turn: str) -> list[str]:
        """The flags this turn's requests were settled with, in order (for the tick's line)."""
        with self._lock, _guarded(self.path):
            rows = self._db.execute(
                "SELECT flag FROM reservations WHERE turn = ? AND flag IS NOT NULL ORDER BY id", (turn,)
            )
            return [str(flag) for (flag,) in rows]

    def runner_flagged(self, runner: str, day: str) -> bool:
        with self._lock, _guarded(self.path):
            return self._over_reported(runner, day)

    def _over_reported(self, runner: str, day: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM reservations WHERE day = ? AND runner = ? AND flag = 'over-reported' LIMIT 1", (day, runner)
        ).fetchone()
        return row is not None

    def _day(self, day: str) -> float:
        (booked,) = self._db.execute(
            f"SELECT coalesce(sum({_COUNTED}), 0) FROM reservations WHERE day = ?", (day,)
        ).fetchone()
        (seeded,) = self._db.execute("SELECT coalesce(sum(usd), 0) FROM seeds WHERE day = ?", (day,)).fetchone()
        return float(booked) + float(seeded)

    def _spent(self, agent: str, turn: str, day: str) -> Spent:
        (agent_booked,) = self._db.execute(
            f"SELECT coalesce(sum({_COUNTED}), 0) FROM reservations WHERE day = ? AND agent = ?", (day, agent)
        ).fetchone()
        (agent_seeded,) = self._db.execute(
            "SELECT coalesce(sum(usd), 0) FROM seeds WHERE day = ? AND agent = ?", (day, agent)
        ).fetchone()
        (turn_booked,) = self._db.execute(
            f"SELECT coalesce(sum({_COUNTED}), 0) FROM reservations WHERE turn = ?", (turn,)
        ).fetchone()
        return Spent(self._day(day), float(agent_booked) + float(agent_seeded), float(turn_booked))


class _Transaction:
    """`BEGIN IMMEDIATE` … `COMMIT` (or `ROLLBACK` on an error) under the connection's lock."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Lock, durable: bool, path: Path) -> None:
        self._db = db
        self._lock = lock
        self._durable = durable
        self._path = path

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            with _guarded(self._path):
                if not self._durable:
                    self._db.execute("PRAGMA synchronous = NORMAL")
                self._db.execute("BEGIN IMMEDIATE")  # the write lock first: nobody reads the sum we change
        except BaseException:
            self._restore()
            self._lock.release()
            raise

    def __exit__(self, kind: object, exc: BaseException | None, trace: object) -> None:
        try:
            with _guarded(self._path):
                if exc is not None:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    if isinstance(exc, sqlite3.Error | OSError):
                        raise exc  # as LedgerUnusable, naming the ledger
                else:
                    self._db.execute("COMMIT")
        finally:
            self._restore()
            self._lock.release()

    def _restore(self) -> None:
        if self._durable:
            return
        with suppress(sqlite3.Error):  # an unusable connection: the error that made it so is on its way
            self._db.execute("PRAGMA synchronous = FULL")
