"""A damaged index file is recognised, set aside for the user and replaced by one rebuilt from the spines.

The index is derived, so nothing is lost by starting it over; what must not happen is every command
failing on it (`hz heinzel reindex` included). Damage is what sqlite itself calls so (a file that is
not a database, a malformed page), something other than a file in its place, or tables that are not
the ones `hz.session.schema` makes under the right version. The damaged file is renamed, not deleted:
`index.sqlite.corrupt-<UTC time>` (with its `-wal` and `-shm`, so it opens as it was), private to
the user, who may look at it or delete it. A busy or read-only database is not damage and is left alone.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import sys
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from hz.fsio import DIR_MODE, FILE_MODE
from hz.session.schema import SCHEMA, TABLES

_CORRUPT, _NOTADB = 11, 26  # sqlite's primary result codes for a damaged file


class DamagedIndex(Exception):
    """Raised inside `Index.open` and caught there: the file is set aside and the open starts over."""

    def __init__(self, why: str, inode: int | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.inode = inode  # of the file found damaged, so that only that one is set aside


def damage_of(exc: sqlite3.DatabaseError) -> str | None:
    """sqlite's word for it when `exc` says the file is damaged, else None (busy, locked, read-only …)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return str(exc) if code is not None and code & 0xFF in (_CORRUPT, _NOTADB) else None


def check_file(path: Path) -> int | None:
    """The inode of the index file, None when there is none yet.

    Only a regular file is an index, and only regular files may sit beside it as its `-wal` and `-shm`:
    sqlite would fail on a directory or a link, or wait on a FIFO."""
    inode = _regular(path, None)
    for suffix in COMPANIONS:
        _regular(Path(f"{path}{suffix}"), inode, suffix)
    return inode


COMPANIONS = ("-wal", "-shm")  # sqlite's log and shared memory beside the index


def _regular(path: Path, inode: int | None, suffix: str = "") -> int | None:
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(found.st_mode):
        return found.st_ino
    mode = found.st_mode
    kind = "a directory" if stat.S_ISDIR(mode) else "a symbolic link" if stat.S_ISLNK(mode) else "not a file"
    if suffix:
        raise DamagedIndex(f"{kind} in place of its {suffix} file", inode)
    raise DamagedIndex(f"{kind} in its place", found.st_ino)


@cache
def _tables() -> dict[str, str]:
    """Each table's CREATE statement as sqlite keeps it in `sqlite_master` (the text as given)."""
    statements = (part.strip() for part in SCHEMA.split(";"))
    return {st.split()[2]: st for st in statements if st.startswith("CREATE TABLE")}


def check_schema(db: sqlite3.Connection) -> None:
    """The tables of an index that claims the current version must be exactly the ones hz makes."""
    found = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
    expected = _tables()
    if any(found.get(name) != expected[name] for name in TABLES):
        raise DamagedIndex("its tables are not the ones hz makes")


def set_aside(path: Path, inode: int | None, now: datetime | None = None) -> Path | None:
    """Rename the damaged index (and its -wal, -shm) to `<name>.corrupt-<UTC time>`; its new path.

    `inode` is the file found damaged: when another process has already set it aside and made a new
    one, that new one is left alone (None is returned). With no index file, a stray -wal or -shm is
    set aside alone. Links are moved as links: nothing they point at is changed.
    """
    try:
        found: int | None = os.lstat(path).st_ino
    except FileNotFoundError:
        found = None
    if inode is not None and found != inode:
        return None
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    moved = [(path, aside)] if found is not None else []
    # a stale log next to a new file would be replayed into it
    moved += [(Path(f"{path}{s}"), Path(f"{aside}{s}")) for s in COMPANIONS if os.path.lexists(f"{path}{s}")]
    for source, target in moved:
        os.rename(source, target)
        if not target.is_symlink():  # a link's own mode means nothing, and chmod would follow it
            os.chmod(target, DIR_MODE if target.is_dir() else FILE_MODE)
    return aside if moved else None


def tell(path: Path, why: str, aside: Path | None) -> None:
    """The one line on stderr: what was wrong, where the old file is, that a rebuilt one took its place."""
    kept = f"kept it as {aside.name}" if aside is not None else "another hz process set it aside"
    print(f"warning: the index {path} was damaged ({why}); {kept} and rebuilt it from the spines", file=sys.stderr)
