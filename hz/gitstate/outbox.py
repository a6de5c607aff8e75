"""Events waiting to reach `hz/state`, kept in private files under `$HZ_HOME/gitstate/<key>/outbox/`.

Each `put` writes its events as one atomic file (0600, fsynced once, however many events), so a tick
pays for one fsync. An event whose identity (kind and key) is queued already is not queued again.
An event leaves the outbox only after the remote has it (pushed by us, or found there), so a crash at
any moment loses nothing and doubles nothing.

Whether anything waits is a listing of folders (`waiting`, `waiting_under`), with nothing heavy
imported: the idle tick asks it every time, so that queued events go out with the next tick, not with
the next turn (a weekly contract's receipts would otherwise wait a week).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from hz.fsio import atomic_write

if TYPE_CHECKING:
    from hz.gitstate.events import Event

SUFFIX = ".jsonl"


def _batch(name: str) -> bool:
    """A file of queued events (a dot file is an atomic write in progress, not yet one)."""
    return name.endswith(SUFFIX) and not name.startswith(".")


def waiting(directory: Path) -> bool:
    """Whether an outbox folder holds a batch of events: one listing, nothing read or imported."""
    try:
        with os.scandir(directory) as entries:
            return any(_batch(entry.name) for entry in entries)
    except OSError:  # no outbox yet (nothing was ever queued), or not a folder: nothing waits there
        return False


def waiting_under(gitstate: Path) -> bool:
    """Whether any outbox under `$HZ_HOME/gitstate/<key>/outbox` holds events (a listing per remote)."""
    try:
        with os.scandir(gitstate) as keys:
            folders = [Path(entry.path) / "outbox" for entry in keys if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return False
    return any(waiting(folder) for folder in folders)


class Outbox:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        # Each file's events as last parsed, by the file's identity (inode, size, mtime): a file is only
        # ever written whole (atomic_write replaces it with a new inode), so an unchanged identity is
        # unchanged content. A tick's writer queues once a turn, and every `put` reads the whole outbox
        # to skip what is queued already: without this a tick of n turns parsed n(n-1)/2 files.
        self._parsed: dict[str, tuple[tuple[int, int, int], list[Event]]] = {}

    def _files(self) -> list[Path]:
        if not self.directory.exists():
            return []
        return sorted(p for p in self.directory.glob("*" + SUFFIX) if _batch(p.name))

    def waiting(self) -> bool:
        return waiting(self.directory)

    def _read(self) -> dict[Path, list[Event]]:
        files = self._files()
        found = {path: self._events_of(path) for path in files}
        names = {path.name for path in files}
        for gone in [name for name in self._parsed if name not in names]:
            del self._parsed[gone]
        return found

    def _events_of(self, path: Path) -> list[Event]:
        import json

        from hz.gitstate.events import Event

        with open(path, "rb") as handle:  # the identity and the bytes of one open file: never mismatched
            seen = os.fstat(handle.fileno())
            identity = (seen.st_ino, seen.st_size, seen.st_mtime_ns)
            kept = self._parsed.get(path.name)
            if kept is not None and kept[0] == identity:
                return list(kept[1])
            events = [Event.parse_obj_checked(json.loads(line)) for line in handle.read().splitlines() if line]
        self._parsed[path.name] = (identity, events)
        return list(events)

    def put(self, events: Iterable[Event]) -> int:
        """Queue events; returns how many were new (an identity already queued keeps its first event)."""
        from hz.gitstate.events import path_of

        known = {path_of(e) for batch in self._read().values() for e in batch}
        fresh: dict[str, Event] = {}
        for event in events:
            if path_of(event) not in known:
                fresh.setdefault(path_of(event), event)
        if fresh:
            name = f"{time.time_ns():020d}-{os.getpid()}.jsonl"
            atomic_write(self.directory / name, b"".join(e.line() for e in fresh.values()))
        return len(fresh)

    def events(self) -> list[Event]:
        """Everything queued, oldest first (by the event's own time, then path)."""
        from hz.gitstate.events import path_of

        found = [e for batch in self._read().values() for e in batch]
        return sorted(found, key=lambda e: (e.ts, path_of(e)))

    def remove(self, events: Iterable[Event]) -> None:
        from hz.gitstate.events import path_of

        gone = {path_of(e) for e in events}
        if not gone:
            return
        for path, batch in self._read().items():
            keep = [e for e in batch if path_of(e) not in gone]
            if not keep:
                path.unlink(missing_ok=True)
            elif len(keep) != len(batch):
                atomic_write(path, b"".join(e.line() for e in keep))

    def __len__(self) -> int:
        return sum(len(batch) for batch in self._read().values())
