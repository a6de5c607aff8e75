"""The spine's file itself: opened only when it is a regular file, and the writer's error.

Shared by the reader (`hz.session.spine`) and the writer (`hz.session.writer`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from hz.errors import HzError
from hz.fsio import FILE_MODE

if TYPE_CHECKING:
    from hz.session.spine import Problem


class SpineError(HzError):
    """An event could not be appended (bad payload, unwritable file)."""


class NotAFile(Exception):
    """Something other than a regular file hz wrote is where the spine belongs (a link, a FIFO, a folder)."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path.name} is {kind}, not a file hz wrote")
        self.why = str(self)

    def problem(self, seq: int, offset: int) -> Problem:
        from hz.session.spine import Problem

        return Problem("broken", seq, offset, self.why)


def open_spine(path: Path, flags: int) -> int:
    """The spine's descriptor, opened without following a link or waiting on a FIFO, and only when it
    is a regular file: a link may lead to another agent's spine or to /dev/zero, a FIFO never ends."""
    import errno
    import stat

    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE)
    except OSError as exc:
        kinds = {errno.ELOOP: "a symbolic link", errno.EISDIR: "a folder"}
        if exc.errno not in kinds:
            raise
        raise NotAFile(path, kinds[exc.errno]) from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return fd
    os.close(fd)
    shapes = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))
    raise NotAFile(path, next((kind for test, kind in shapes if test(mode)), "a device"))
