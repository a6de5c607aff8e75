"""A derivation: many writes that can all be made again from their source, durable once, at their end.

A fresh home's adoption (`hz.heinzel.adopt.adopt_team_from_main` on a home with no agent yet, every
Actions run) derives every agent from main. Made durable write by write, as every spine line is, it cost
about nine fsyncs per contract; a derivation makes it durable once instead:

- `derivation(store)`, only when the home holds no agent, makes `<heinzel>/.deriving` (O_EXCL) and holds
  an exclusive flock on it (its folder fsynced: the derivation's one durable write before its others).
  In a home with agents, or with a mark already there, nothing changes: the writes stay durable one by
  one, and no mark is ever left where agents live (the next open would undo adopted agents).
- Inside it `store.sync` is False: spine lines, contract versions and pending marks are written with no
  fsync, and the index reads each new spine once, when its writer closes, committing its rows a batch
  at a time (`Index.batched`). A new agent's spine takes no `lock` file (`SpineWriter._derived_spine`).
- At its end one `syncfs` makes every byte durable (the index's too), then the mark goes (folder fsynced).
- A process that dies in between leaves the mark with no holder. Whoever opens the store next (a tick,
  any hz command) undoes it before reading anything (`undo_unfinished`): every agent the derivation may
  have made (an `adopted` one, or one without a whole first line) is removed and the index forgets it.
  The adoption's stamp (`team-contracts.seen`) is written only after the end, so the next tick adopts
  again from main, from nothing. A power loss leaves the same: the mark was durable before anything else.
- An error inside undoes at once, under the held lock, the same way.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from hz.fsio import FILE_MODE, fsync_dir, sync_filesystem
from hz.session.lock import DERIVING, SPINE

if TYPE_CHECKING:
    from hz.session.store import Store

_FIRST_LINE = 1 << 16  # a spine's first line is a few hundred bytes; more than this is not one we wrote


@contextlib.contextmanager
def derivation(store: Store) -> Iterator[bool]:
    """Writes made inside go unsynced when this yields True (a home with no agent yet), durable at the end."""
    root = store.root
    fd = None if store.index.spine_ids() else _new_mark(root)  # the index opened first undoes a dead one
    if fd is None:  # a home with agents, or another derivation's mark: written as usual
        yield False
        return
    try:
        fsync_dir(root)  # the mark is durable before any unsynced write
        store.sync = False
        try:
            with store.index.batched():  # the index's rows in a few transactions, not one per agent
                yield True
        except BaseException:
            store.sync = True
            _undo(root)
            store.index.refresh(full=True)
            _unmark(root)
            raise
        store.sync = True
        sync_filesystem(fd)
        _unmark(root)
    finally:
        os.close(fd)


def _new_mark(root: Path) -> int | None:
    """The mark, made by us and locked, in a home still without agents; None otherwise (nothing left)."""
    try:  # made here or not at all: a mark found is another derivation's (alive, or undone by the next open)
        fd = os.open(root / DERIVING, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except FileExistsError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # a process opening the store took it first, to undo it: it removes it too
        os.close(fd)
        return None
    if not _holds(fd, root / DERIVING):  # that process undid it before our lock
        os.close(fd)
        return None
    if any(name.startswith("hz-") for name in os.listdir(root)):  # an adoption of another process began
        _unmark(root)
        os.close(fd)
        return None
    return fd


def undo_unfinished(root: Path) -> None:
    """Undo what a derivation that did not end left (its process died): the index is not open yet."""
    try:
        fd = os.open(root / DERIVING, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # gone meanwhile (it ended), or not a file we made: nothing of ours to undo
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                return  # its process still runs: what it wrote is read as it stands, as before
            raise
        if not _holds(fd, root / DERIVING):
            return  # it ended and another began: the new one is alive
        _undo(root)
        from hz.session.index import Index

        with Index.open(root) as index:
            index.refresh(full=True)
        _unmark(root)
    finally:
        os.close(fd)


def _holds(fd: int, path: Path) -> bool:
    """Whether `fd` is still the file at `path` (not one unlinked by a derivation that ended meanwhile)."""
    try:
        return os.fstat(fd).st_ino == os.lstat(path).st_ino
    except FileNotFoundError:
        return False


def _unmark(root: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(root / DERIVING)
    fsync_dir(root)


def _undo(root: Path) -> None:
    """Remove every agent the derivation may have made: adopted ones, and folders with no whole first line."""
    for name in os.listdir(root):
        if name.startswith("hz-") and _derived(root / name):
            shutil.rmtree(root / name, ignore_errors=True)


def _derived(directory: Path) -> bool:
    from hz.session.spine import parse_spine

    try:
        with open(directory / SPINE, "rb") as handle:
            head = handle.read(_FIRST_LINE)
    except OSError:  # no spine (the folder was made, its first line not yet)
        return directory.is_dir() and not directory.is_symlink()
    line, newline, _ = head.partition(b"\n")
    if not newline:
        return True  # torn before its first line ended
    read = parse_spine(line + newline)
    if not read.events:
        return True
    first = read.events[0]
    return first.kind == "heinzel.created" and first.data.get("origin") == "adopted"
