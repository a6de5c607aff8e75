"""Text files of the work tree and files a person names (`--from FILE`): read safely, replace safely.

A plain `read_text` hangs on a FIFO, never ends on `/dev/zero` and crashes on bytes that are not UTF-8.
Here the file must be a regular file (links are followed: a user may keep a contract anywhere), it is
opened without blocking, checked again once open, read up to a bound, and decoded strictly. Anything
else is an `UnreadableFile` that names the file and says what it is instead.

A plain write through a fixed temporary name follows a link planted under that name (a committed
`.CODEOWNERS.hz-tmp -> ~/.bashrc`); `replace_text_file` writes through a fresh temporary file instead.

Paths a contract names inside its repository follow the stricter rule of `hz.repo_paths`.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from hz.errors import HzError

# A contract or a CODEOWNERS file is a few KiB; 1 MiB leaves room for any real one and bounds what a
# hostile file can make hz hold in memory.
MAX_TEXT_BYTES = 1 << 20


class UnreadableFile(HzError):
    """A file that is not a regular UTF-8 text file of a sane size."""

    def __init__(self, path: Path, reason: str, *, hint: str | None = None) -> None:
        super().__init__(f"{path}: {reason}", hint=hint)
        self.reason = reason


def read_text_file(path: Path, *, hint: str, limit: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of the regular file at `path`; UnreadableFile (with `hint`) for anything else."""
    data = read_bytes_file(path, hint=hint, limit=limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(path, f"not UTF-8 text (byte {exc.start} is {data[exc.start]:#04x})", hint=hint) from None


def read_bytes_file(path: Path, *, hint: str, limit: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them."""
    try:
        before = os.stat(path)
        if not stat.S_ISREG(before.st_mode):
            raise UnreadableFile(path, f"is {_kind(before.st_mode)}, not a regular file", hint=hint)
        # O_NONBLOCK: a FIFO swapped in after the check cannot block the open
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UnreadableFile(path, f"cannot be read ({exc.strerror})", hint=hint) from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino) or not stat.S_ISREG(opened.st_mode):
            raise UnreadableFile(path, "changed while hz read it", hint="try again once nothing rewrites it")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise UnreadableFile(path, f"is larger than {limit // 1024} KiB", hint=hint)
    return data


def replace_text_file(path: Path, text: str, *, mode: int = 0o644, hint: str) -> None:
    """Replace the work-tree file `path` with `text` in one step, with ordinary permissions.

    Refused (UnreadableFile) when `path` is a folder or another thing that is not a file or a link:
    renaming over it would fail half-way, and it is not hz's to remove."""
    import tempfile

    with contextlib.suppress(FileNotFoundError):
        found = os.lstat(path).st_mode
        if not (stat.S_ISREG(found) or stat.S_ISLNK(found)):
            raise UnreadableFile(path, f"is {_kind(found)}, not a file hz can replace", hint=hint)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".hz-tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _kind(mode: int) -> str:
    from hz.repo_paths import kind_of  # the one wording of file types in messages

    return kind_of(mode)
