"""Turn bodies `<agent dir>/turns/<turn>.jsonl`: what a turn exchanged, kept for `retention_days`.

A body holds the content the spine never does (model messages, tool calls and results, inputs as
fetched, a draft's text, diff hunks of lessons). Its first line is a header `{"hz_body": 1, "turn": …}`
so that pruning can tell a file hz wrote from anything else that lands in the folder. The spine refers
to a body by turn id and `body_ref(...)` (content hash and size); a body that expired is a gap the user
sees (`read_body(...).status == "expired"`), never a break in the chain.

API: `append_body(agent_dir, turn, record)` (fsynced, creates the body with its header),
`body_ref(agent_dir, turn)`, `read_body(agent_dir, turn, expected=None)`,
`prune_bodies(agent_dir, now=, retention_days=)` which deletes only regular files with hz's header,
never follows a symlink (O_NOFOLLOW, lstat) and is idempotent.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from hz.canonical import fingerprint_bytes
from hz.errors import HzError
from hz.fsio import FILE_MODE, fsync_dir, private_dir
from hz.secrets import secrets_of

TURNS = "turns"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_HEADER_KEY = b'{"hz_body":1,'


@dataclass(frozen=True)
class BodyRef:
    hash: str
    size: int

    def as_dict(self) -> dict[str, Any]:
        return {"hash": self.hash, "size": self.size}


@dataclass
class BodyRead:
    status: str  # "present" | "expired" | "changed"
    records: list[dict[str, Any]] = field(default_factory=list)


def body_path(agent_dir: Path, turn: str) -> Path:
    if not _NAME.match(turn):
        raise ValueError(f"not a turn id: {turn!r}")
    return agent_dir / TURNS / f"{turn}.jsonl"


def append_body(agent_dir: Path, turn: str, record: dict[str, Any]) -> None:
    path = body_path(agent_dir, turn)
    private_dir(path.parent)
    fd = _open_for_append(path)
    try:
        created = os.fstat(fd).st_size == 0
        if created:
            os.write(fd, orjson.dumps({"hz_body": 1, "turn": turn}) + b"\n")
        # the last boundary before the disk: whatever a body holds, no secret of this process lands in it
        os.write(fd, secrets_of().scrub_bytes(orjson.dumps(record)) + b"\n")
        os.fsync(fd)  # also inside a tick's batch: a spine line that names this record may reach the disk first
    finally:
        os.close(fd)
    if created:  # the folder's entry of a new body; later records change the file alone
        fsync_dir(path.parent)


def _open_for_append(path: Path) -> int:
    """The body for appending; refused (exit 1) when a link, a FIFO or a folder is in its place, rather
    than writing through the link, waiting for a reader or failing on an error nobody foresaw."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, FILE_MODE)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.EISDIR, errno.ENXIO):  # ENXIO: a FIFO nobody reads
            raise
        raise _not_a_body(path) from None
    if stat.S_ISREG(os.fstat(fd).st_mode):
        return fd
    os.close(fd)
    raise _not_a_body(path)


def _not_a_body(path: Path) -> HzError:
    return HzError(
        f"the turn body {path} is not a file hz wrote (a link, a FIFO or a folder is in its place)",
        hint=f"move {path} away; hz writes a new one",
    )


def body_ref(agent_dir: Path, turn: str) -> BodyRef | None:
    try:
        data = _read_nofollow(body_path(agent_dir, turn))
    except NotABody:
        return None
    return None if data is None else BodyRef(fingerprint_bytes(data), len(data))


def read_body(agent_dir: Path, turn: str, expected: str | None = None) -> BodyRead:
    try:
        data = _read_nofollow(body_path(agent_dir, turn))
    except NotABody:
        return BodyRead("changed")
    if data is None:
        return BodyRead("expired")
    if expected is not None and fingerprint_bytes(data) != expected:
        return BodyRead("changed")
    return BodyRead("present", [r for r in map(_record, data.splitlines()[1:]) if r is not None])


def _record(line: bytes) -> dict[str, Any] | None:
    """A line of the body as written; None for one that is not (a hand or a disk changed it): a body only
    informs, so a damaged line is a gap, never a failed command."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


# The most a body may hold to be read: far above what a turn writes (its prompt is bounded by the token
# cap, a few MB; each input by the 1 MiB `file:` bound), far below what would exhaust memory when a
# file of gigabytes (or a sparse one) sits where a body belongs.
MAX_BODY_BYTES = 128 * 1024 * 1024


class NotABody(Exception):
    """Something in a body's place that hz never wrote: a FIFO, a folder, a device, a file too large."""


def _read_nofollow(path: Path) -> bytes | None:
    """The body's bytes; None when there is none (expired, or a link: never followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO: no wait
    except OSError:
        return None
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_BODY_BYTES:
        os.close(fd)
        raise NotABody(path)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(MAX_BODY_BYTES + 1)


def prune_bodies(agent_dir: Path, *, now: datetime, retention_days: int) -> list[Path]:
    """Delete bodies older than `retention_days` (0 keeps forever); return what was deleted."""
    if retention_days <= 0:
        return []
    return prune_files(agent_dir / TURNS, ".jsonl", _HEADER_KEY, now - timedelta(days=retention_days))


def prune_files(folder: Path, suffix: str, header: bytes, cutoff: datetime) -> list[Path]:
    """Delete regular files in `folder` named `<id><suffix>` that start with `header` and are older than
    `cutoff`. Symlinks (the folder itself included) are never followed and never deleted."""
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return []
    except FileNotFoundError:
        return []
    deleted: list[Path] = []
    limit = cutoff.timestamp()
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.endswith(suffix) or not _NAME.match(entry.name[: -len(suffix)]):
                continue
            if _is_ours_and_old(Path(entry.path), header, limit):
                os.unlink(entry.path)
                deleted.append(Path(entry.path))
    if deleted:
        fsync_dir(folder)
    return deleted


def _is_ours_and_old(path: Path, header: bytes, limit: float) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # a symlink (ELOOP), gone already, or unreadable: not ours to delete
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mtime >= limit:
            return False
        return os.read(fd, len(header)) == header
    finally:
        os.close(fd)
