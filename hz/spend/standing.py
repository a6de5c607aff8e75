"""What the spend ledger counts for each agent on a day, and the part of it still in doubt.

The ledger counts a request at its reservation (its worst case) until the endpoint's usage settles it
(`hz.spend.ledger`). A reservation that is never settled is a request whose cost nobody knows: it was in
flight when hz stopped (a kill, a power cut), or it is in flight right now. `hz heinzel list` and `show`
report the ledger's count, so what they say is what the caps see, and name the unsettled part. It stops
being in doubt when the endpoint's usage settles it, or when its day ends: a past day's unsettled
reservation is final at its worst case (`Ledger.close_days`), and today's figures never include it.

Read only: a listing never makes a ledger, never waits on a writer (WAL readers do not), and reads an
unreadable one as no ledger at all (the index's figures stand; the next turn names the damage).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from hz.spend.ledger import LEDGER

IN_FLIGHT = "a request is in flight"
STOPPED = "a request was in flight when hz stopped"


@dataclass(frozen=True)
class Standing:
    counted_usd: float  # settled, seeded and in doubt: what the caps see
    in_doubt_usd: float  # reserved by requests not settled
    turns: tuple[str, ...]  # the turns those requests belong to


def standing(folder: Path, day: str) -> dict[str, Standing]:
    """Each agent with spend in the ledger of `folder` on `day` (UTC `YYYY-MM-DD`)."""
    path = folder / LEDGER
    if not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error:
        return {}
    try:
        return _read(db, day)
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def _read(db: sqlite3.Connection, day: str) -> dict[str, Standing]:
    counted: dict[str, float] = {}
    doubt: dict[str, float] = {}
    turns: dict[str, list[str]] = {}
    rows = db.execute(
        "SELECT agent, turn, coalesce(settled_usd, reserved_usd), settled_usd IS NULL FROM reservations WHERE day = ?",
        (day,),
    )
    for agent, turn, usd, unsettled in rows:
        counted[agent] = counted.get(agent, 0.0) + float(usd)
        if unsettled:
            doubt[agent] = doubt.get(agent, 0.0) + float(usd)
            if turn not in turns.setdefault(agent, []):
                turns[agent].append(str(turn))
    for agent, usd in db.execute("SELECT agent, usd FROM seeds WHERE day = ?", (day,)):
        counted[agent] = counted.get(agent, 0.0) + float(usd)
    return {a: Standing(usd, doubt.get(a, 0.0), tuple(turns.get(a, ()))) for a, usd in counted.items()}


def why_in_doubt(agent_dir: Path) -> str:
    """Whether the requests in doubt are in flight now (a turn holds the agent's spine) or were when hz
    stopped. Asked with a shared lock taken and dropped at once, so a writer is never kept waiting."""
    import errno
    import fcntl
    import os

    try:
        fd = os.open(agent_dir / "lock", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return STOPPED  # no lock file: no turn has it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return IN_FLIGHT if exc.errno in (errno.EAGAIN, errno.EACCES) else STOPPED
    finally:
        os.close(fd)  # closing drops the lock too
    return STOPPED
