"""One `git log` over a history, read as a stream: each commit's ids, time, author and the paths it changed.

Working out which paths each commit changed is most of what a `git:` window costs; git does it in C
from its own object store, so one process lists every commit of the window with its paths and hz reads
the output as it comes (a chunk at a time, never the whole of it), stopping git as soon as the walk
leaves the window. Commits come newest first by committer time, the order libgit2's time sort gives.

The output is NUL-separated, so no byte of a name or a message needs quoting: each record starts with
an empty field (two NULs in a row, which a path list never holds, since a path is never empty), then six
fields in a fixed order, then, when the commit changed anything, a newline and its paths each ended by
a NUL. Names and messages come in UTF-8 (`--encoding=UTF-8`): git converts a commit that names another
encoding, and passes on as stored the bytes of one it cannot convert (an encoding nobody knows), which
read as UTF-8 with U+FFFD for what is not, as pygit2 read them.

Paths are what the commit changed against its first parent (`--diff-merges=first-parent`, git 2.31+),
the empty tree for a root commit, renames as the two paths they are. Nothing from the repository's own
configuration changes the output's shape: mailmap, signatures, relative diffs, colours and decorations
are switched off on the command line.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NamedTuple

from hz.gitenv import git_env
from hz.sources.base import SourceError

# %H %P, %ct, %an, %ae, %B: the record's five fields after its empty first one
_FORMAT = "%x00%H %P%x00%ct%x00%an%x00%ae%x00%B"
_FIELDS = 5
_CHUNK = 1 << 16
_CONFIG = (
    "log.showRoot=true",
    "log.showSignature=false",
    "log.mailmap=false",
    "diff.relative=false",
    "core.quotePath=false",
    "color.ui=false",
)


class LogCommit(NamedTuple):  # a tuple: tens of thousands are made per window
    id: str
    parents: tuple[str, ...]
    time: int
    author: bytes
    email: bytes
    subject: bytes  # the message's first line, in UTF-8 where git could convert it
    paths: tuple[bytes, ...]


@contextmanager
def commits(repository: Path, tip: str, environ: Mapping[str, str] | None = None) -> Iterator[Iterator[LogCommit]]:
    """The commits reachable from `tip` (an object id hz resolved), newest first; git is stopped when the
    caller leaves the block, however far it read."""
    args = ["git", "-C", str(repository)]
    for setting in _CONFIG:
        args += ["-c", setting]
    args += ["log", "-z", "--encoding=UTF-8", "--no-renames", "--diff-merges=first-parent", "--name-only"]
    args += ["--no-use-mailmap", "--no-color", "--no-decorate", "--no-ext-diff", f"--format={_FORMAT}", tip, "--"]
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: git never blocks on what it says there
        process = subprocess.Popen(
            args, env=git_env(environ, LC_ALL="C"), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
        )
        assert process.stdout is not None
        read = _Read()
        try:
            yield _records(process.stdout, repository, read)
        finally:
            if not read.to_the_end:
                process.kill()  # the walk left the window: the rest of the history is not wanted
            process.stdout.close()
            code = process.wait()
        if read.to_the_end and code != 0:
            errors.seek(0)
            said = errors.read(4096).decode("utf-8", "replace").strip()
            raise SourceError(
                "malformed",
                f"git log failed in {repository}: {said[:300]}",
                hint="git fsck names missing or damaged objects",
            )


@dataclass
class _Read:
    to_the_end: bool = False  # the output was read to its end (git then ends by itself)


def _records(stream: IO[bytes], repository: Path, read: _Read) -> Iterator[LogCommit]:
    """The commits of the output, parsed a chunk at a time from a flat list of its NUL-separated fields."""
    fields: list[bytes] = []
    at = 0  # the first field not yet parsed: a record's empty first field
    tail = b""  # the bytes after the chunk's last NUL
    final = False
    while not final:
        chunk = stream.read(_CHUNK)
        parts = (tail + chunk).split(b"\0") if chunk else ([tail] if tail else [])
        tail = parts.pop() if chunk else b""
        fields = fields[at:] + parts
        at = 0
        final = not chunk
        while at < len(fields):
            end = _record_end(fields, at, final, repository)
            if end is None:
                break
            yield _commit(fields, at, end, repository)
            at = end
    read.to_the_end = True


def _record_end(fields: list[bytes], at: int, final: bool, repository: Path) -> int | None:
    """Where the record starting at `at` ends (the next record's first field); None until it is all read."""
    if fields[at] != b"":
        raise _unreadable(repository)
    count = len(fields)
    end = at + 1 + _FIELDS
    if end > count or (end == count and not final):
        if final:
            raise _unreadable(repository)
        return None
    if end < count and fields[end].startswith(b"\n"):
        end += 1
        while end < count and fields[end]:  # its paths, up to the next record's empty field
            end += 1
    return end if end < count or final else None


def _commit(fields: list[bytes], at: int, end: int, repository: Path) -> LogCommit:
    ids, time, author, email, message = fields[at + 1 : at + 1 + _FIELDS]
    names = ids.decode("ascii", "replace").split()
    if not names or not time.lstrip(b"-").isdigit():  # never a commit's own fields: git's output misread
        raise _unreadable(repository)
    paths = fields[at + 1 + _FIELDS : end]
    if paths:
        paths[0] = paths[0][1:]  # the newline that opens the list
    subject = message.lstrip(b"\n").split(b"\n", 1)[0]  # blank lines before it are no subject (libgit2 too)
    return LogCommit(names[0], tuple(names[1:]), int(time), author, email, subject, tuple(paths))


def _unreadable(repository: Path) -> SourceError:
    return SourceError(
        "malformed",
        f"the output of git log in {repository} could not be read",
        hint="a commit message holding a NUL byte can cause this; git fsck checks the history",
    )
