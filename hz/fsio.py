"""Private, atomic file writes: everything hz keeps under $HZ_HOME goes through here.

Directories are 0700 and files 0600. A write goes to a temporary file in the same directory, is
fsynced, renamed over the target and the directory is fsynced, so a crash leaves the old or the new
content and never a half-written file.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from hz.errors import HzError

DIR_MODE = 0o700
FILE_MODE = 0o600


class CannotMakeFolder(HzError):
    """A folder hz keeps its data in cannot be made or used (a read-only place, /proc, no permission)."""


def private_dir(path: Path) -> Path:
    """Create `path` with mode 0700, and each missing parent too; tighten `path` if it already exists.

    `Path.mkdir(parents=True)` would make the parents with the umask's mode (often 0755): the first
    folder hz makes is usually `$HZ_HOME` itself, the one that most needs to be private.
    """
    try:
        return _private_dir(path)
    except OSError as exc:  # HZ_HOME=/proc/x, a read-only disk, a parent that is a file: the user's to fix
        failed = exc.filename or path
        raise CannotMakeFolder(
            f"hz cannot make or use its folder {path}: {failed}: {exc.strerror}",
            hint="point HZ_HOME at a folder you can write, or fix what is in the way",
        ) from None


def _private_dir(path: Path) -> Path:
    missing: list[Path] = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:  # another process made it meanwhile; `path` itself is tightened below
            continue
        folder.chmod(DIR_MODE)  # the umask may have taken bits from 0700
    mode = path.stat().st_mode
    if not stat.S_ISDIR(mode):
        raise NotAFolder(path)
    if mode & 0o777 != DIR_MODE:
        path.chmod(DIR_MODE)
    return path


class NotAFolder(HzError):
    """A file (or a link to one) where hz keeps a folder of its own: named, never written through."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is not a folder, but hz keeps its own files there", hint=f"move {path} away")


def read_own(path: Path, limit: int, *, mine: bool = False) -> bytes | None:
    """A small file hz wrote under $HZ_HOME; None when there is none, or something else is in its place
    (a link, never followed; a FIFO, never waited on; a folder; more than `limit` bytes). `mine`: also
    None for a file of another user, or one group or others may write (a folder several users share)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_size > limit:
            return None
        if mine and (found.st_uid != os.geteuid() or found.st_mode & 0o022):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(found.st_size)
    finally:
        os.close(fd)


def _write_unsynced(path: Path, payload: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)  # the umask may have taken bits from it
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def sync_filesystem(fd: int) -> None:
    """Make every write to the file system holding `fd` durable at once (`syncfs`; `sync` without it)."""
    import ctypes  # here: only a derivation's end needs it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syncfs(fd) == 0:
            return
    except (OSError, AttributeError):  # no such call here (not Linux)
        pass
    os.sync()


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def new_private_dir(path: Path) -> Path:
    """`private_dir` for a folder that should not exist yet, in a parent that does (a new agent's): one
    mkdir, where `private_dir` looks at the folder and its parent first and at the result after. Anything
    else (it exists, its parent does not) is left to `private_dir`."""
    try:
        os.mkdir(path, DIR_MODE)
    except OSError:
        return private_dir(path)
    os.chmod(path, DIR_MODE)  # the umask may have taken bits from 0700
    return path


def atomic_write(
    path: Path, data: bytes | str, *, mode: int = FILE_MODE, sync: bool = True, folder_made: bool = False
) -> None:
    """Replace `path` with `data` atomically (temp file, fsync, rename, fsync of the directory).

    `sync=False` (a derivation made durable once at its end, `hz.session.derived`) writes a new file in
    place with no fsync: nobody reads it before the derivation ends, and a crash redoes it whole.
    `folder_made`: the caller made `path`'s folder (`new_private_dir`) just now, so it is not looked at."""
    if not sync:
        if folder_made:
            pass
        elif mode == FILE_MODE:
            private_dir(path.parent)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        _write_unsynced(path, data.encode("utf-8") if isinstance(data, str) else data, mode)
        return
    import tempfile  # here, not at the top: an idle tick imports this module and never writes

    payload = data.encode("utf-8") if isinstance(data, str) else data
    directory = path.parent
    if mode == FILE_MODE:
        private_dir(directory)
    else:  # a file meant to be shared (a draft in the repository): its folder keeps the user's modes
        directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(directory)
