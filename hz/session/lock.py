"""The spine's lock and the marks writers leave for the index.

One writer per spine: an exclusive `flock` on `<agent dir>/lock`, waited for a bounded time, then a
clear `LockTimeout`. Closing the descriptor releases it, so a process that dies releases it too.
Before its first append a writer leaves `<root>/.pending/<agent id>`; the index clears it once it has
read everything under the lock (see `hz.session.index`).
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from pathlib import Path

from hz.errors import HzError, LockTimeout
from hz.fsio import FILE_MODE, NotAFolder, fsync_dir, private_dir

SPINE = "session.jsonl"  # the agent folder's files: the spine, its lock, and the marks for the index
LOCK = "lock"
PENDING = ".pending"  # <root>/.pending/<agent id>: a writer opened this spine since the index last caught up
DERIVED_SPINE = ".session.jsonl.new"  # a derivation's new spine until its writer closes (hz.session.writer)
DERIVING = ".deriving"  # <root>/.deriving: a derivation's writes are not durable yet (hz.session.derived)
_POLL_S = 0.005


def mark_pending(directory: Path) -> None:
    """Leave a durable mark, before the first append, that the index must catch up with this spine.

    Any writer leaves it, whoever opened it, so an index never misses lines appended by a process that
    died or did not talk to the index; the index clears it once it has read everything under the lock.
    """
    marker = directory.parent / PENDING / directory.name
    if marker.exists():
        return
    private_dir(marker.parent)
    os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE))
    fsync_dir(marker.parent)


def clear_pending(directory: Path) -> None:
    """Called with the spine's lock held, once the index holds every line of it."""
    (directory.parent / PENDING / directory.name).unlink(missing_ok=True)


def pending(root: Path) -> list[str]:
    try:
        return sorted(os.listdir(root / PENDING))
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise NotAFolder(root / PENDING) from None


def try_lock(directory: Path) -> int | None:
    """The spine's lock if nobody holds it right now (release by closing the descriptor), else None."""
    try:
        return lock(directory / LOCK, 0.0)
    except LockTimeout:
        return None


def lock(path: Path, timeout: float) -> int:
    """The exclusive flock on `path`, waiting at most `timeout` seconds; the caller closes the fd."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EISDIR):
            raise
        raise _not_a_lock(path, "a symbolic link" if exc.errno == errno.ELOOP else "a folder") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # a FIFO or a device: not the file every other hz process locks
        os.close(fd)
        raise _not_a_lock(path, "a named pipe" if stat.S_ISFIFO(mode) else "a device")
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                os.close(fd)
                raise
        if time.monotonic() >= deadline:
            os.close(fd)
            raise LockTimeout(
                f"the session in {path.parent} is held by another hz process (waited {timeout:g} s)",
                hint="it is released when that turn ends; a chat message waits in the inbox meanwhile",
            )
        time.sleep(_POLL_S)


def _not_a_lock(path: Path, kind: str) -> HzError:
    """A lock file replaced by something else: refused, since locking it would not exclude other writers."""
    return HzError(
        f"the lock {path} is {kind}, not the file hz locks",
        hint=f"no hz process can hold it: remove it (rm -r {path}) and hz makes a new one",
    )
