"""One durability point for a tick's spine lines: the lines of all its turns made durable together.

A drafted turn appends nine spine lines, and each was fdatasynced on its own (with the body records' and
their folder's fsyncs, about twenty syncs a slot: the largest part of a drafting tick's time on a busy
disk). Inside `durable_once()` (the tick's turns, `hz.tick.ticking`) a spine writer appends as before,
in the same order, but leaves the flush to the batch's end, which comes before the tick's finishing push
and before its report: one `fdatasync` per spine written, one fsync per folder that gained a spine.

What that keeps: nothing leaves the machine between two durability points but model requests, whose
spend the ledger makes durable before each one leaves (`hz.turn.ledger`); a turn the tick reports, or
whose receipt it pushes, is durable. A process killed (SIGKILL) loses nothing: the lines are in the
page cache. A power cut before the batch's end loses at most a tail of this tick's lines, as a crash
before them would have: the turn is resumed from its last durable line, or runs again (its lease, taken
before any turn, still names this member). Turn bodies are still fsynced record by record: a spine line
that names a body record may reach the disk before the batch's end, and must never name a lost one. The
pending marks (`hz.session.lock`) stay durable from before the first line as always, and are cleared
only after the batch's flush, so an index that read lines a power cut took catches up again (it finds
the spine shorter and replays it).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from hz.fsio import fsync_dir
from hz.session.lock import clear_pending, try_lock


class Batch:
    """The spines a tick wrote and has not flushed yet."""

    def __init__(self) -> None:
        self.files: dict[Path, None] = {}  # kept in the order first written
        self.folders: dict[Path, None] = {}
        self.marks: dict[Path, None] = {}  # agent folders whose pending mark waits for the flush

    def wrote(self, path: Path, *, created: bool = False) -> None:
        self.files.setdefault(path, None)
        if created:
            self.folders.setdefault(path.parent, None)

    def mark_held(self, agent_dir: Path) -> None:
        self.marks.setdefault(agent_dir, None)

    def flush(self) -> None:
        for folder in self.folders:
            with contextlib.suppress(FileNotFoundError):
                fsync_dir(folder)
        for path in self.files:
            _datasync(path)
        for agent_dir in self.marks:  # as a writer's close clears it: only with the spine's lock
            fd = try_lock(agent_dir)
            if fd is not None:
                try:
                    clear_pending(agent_dir)
                finally:
                    os.close(fd)
        self.files.clear()
        self.folders.clear()
        self.marks.clear()


_ACTIVE: ContextVar[Batch | None] = ContextVar("hz_durable_batch", default=None)


def active() -> Batch | None:
    """The batch the writes of this context join, None when each write is durable on its own."""
    return _ACTIVE.get()


@contextlib.contextmanager
def durable_once() -> Iterator[Batch]:
    """Writes inside are flushed together at the end (also when it ends by an error: what was written stays)."""
    batch = Batch()
    token = _ACTIVE.set(batch)
    try:
        yield batch
    finally:
        _ACTIVE.reset(token)
        batch.flush()


def _datasync(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # gone (a compaction replaced it, durably) or no longer a file of ours
        return
    try:
        os.fdatasync(fd)
    finally:
        os.close(fd)
