"""The one writer of a spine: `SpineWriter.open(agent_dir, timeout=…)` takes the exclusive flock on
`<agent dir>/lock`, waiting at most `timeout` seconds before raising `LockTimeout`; `append(kind, data,
turn=, key=, now=)` writes one compact line (`hz.session.compact`), fsyncs it and returns its
`Envelope`; `close()` releases the lock. A torn last line is cut off by the next writer, which records
`spine.repaired`; `set_aside` moves untrusted lines into a file of their own; `replace` swaps the whole
file atomically (compaction). Re-exported by `hz.session.spine`. Inside a derivation a new agent's spine
is written with no lock and put in place by `close` (`SpineWriter._derived_spine`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from hz.fsio import FILE_MODE, fsync_dir
from hz.session.batch import active
from hz.session.compact import Context, encode
from hz.session.envelope import Envelope, format_ts, line_hash
from hz.session.lock import DERIVED_SPINE, LOCK, SPINE, lock, mark_pending
from hz.session.spine_file import NotAFile, SpineError, open_spine

Listener = Callable[[Envelope, int, str], None]


class SpineWriter:
    """The one writer of a spine, holding its lock from `open` to `close`."""

    def __init__(
        self, directory: Path, lock_fd: int, fd: int, *, created: bool, validate: bool, sync: bool = True
    ) -> None:
        self.directory = directory
        self.sync = sync  # False only inside a derivation, made durable once at its end (hz.session.derived)
        self.derived = lock_fd < 0  # a new spine of a derivation: written aside, put in place by `close`
        self.written = bytearray()  # a derived spine's bytes, for the index to read without reading it back
        self._lock_fd = lock_fd
        self._fd = fd
        self._created = created
        self._validate = validate
        self.size = 0
        self.last_seq = 0
        self.head: str | None = None
        self.listeners: list[Listener] = []
        self._repair: dict[str, Any] | None = None
        self._context = Context()  # the compact stretch this writer continues (a new one at its first line)

    @classmethod
    def open(
        cls,
        directory: Path,
        *,
        timeout: float = 10.0,
        validate: bool = True,
        listeners: list[Listener] | None = None,
        now: datetime | None = None,
        sync: bool = True,
    ) -> SpineWriter:
        """Lock, read the tail, cut a torn line off and record that (through `listeners` too).
        `sync=False`: no fsync per line and no pending mark, for a derivation (`hz.session.derived`).
        There a spine that does not exist yet is written under another name with no lock, and `close`
        renames it into place (`_derived_spine`)."""
        path = directory / SPINE
        if not sync and not os.path.lexists(path):
            return cls._derived_spine(directory, validate=validate, listeners=listeners)
        lock_fd = lock(directory / LOCK, timeout)
        try:
            if sync:
                mark_pending(directory)
            created = not os.path.lexists(path)
            fd = open_spine(path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
        except NotAFile as exc:
            os.close(lock_fd)
            from hz.session.frozen import FrozenSpine

            raise FrozenSpine(directory.name, exc.problem(1, 0).render()) from None
        except BaseException:
            os.close(lock_fd)
            raise
        writer = cls(directory, lock_fd, fd, created=created, validate=validate, sync=sync)
        try:
            writer.listeners.extend(listeners or [])
            writer._load_tail()
            if writer._repair is not None:
                writer.append("spine.repaired", writer._repair, now=now)
                writer._repair = None
        except BaseException:
            writer.close()
            raise
        return writer

    @classmethod
    def _derived_spine(cls, directory: Path, *, validate: bool, listeners: list[Listener] | None) -> SpineWriter:
        """A new agent's first spine inside a derivation, with no `lock` file: creating a file is most of what
        an adopted agent costs on a busy disk, and this one would only ever be locked by this writer.

        Nobody else can write this spine meanwhile: an agent is known to other processes only through its
        spine (the index lists folders with a `session.jsonl`), and the lines go to `.session.jsonl.new`
        until `close` renames it to `session.jsonl` whole. Later writers create the lock as ever (O_CREAT).
        A crash before the rename leaves a folder with no spine, which undoing the derivation removes."""
        fd = open_spine(directory / DERIVED_SPINE, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND)
        writer = cls(directory, -1, fd, created=True, validate=validate, sync=False)
        writer.listeners.extend(listeners or [])
        return writer

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            if self.derived:  # whole lines only (an append writes its line whole or raises): now in place
                os.rename(self.directory / DERIVED_SPINE, self.directory / SPINE)
            else:
                os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._fd = self._lock_fd = -1

    def __enter__(self) -> SpineWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(
        self,
        kind: str,
        data: dict[str, Any] | None = None,
        *,
        turn: str | None = None,
        key: str | None = None,
        now: datetime | None = None,
    ) -> Envelope:
        payload = _validated(kind, data or {}) if self._validate else dict(data or {})
        moment = now if now is not None else datetime.now(UTC)
        envelope = Envelope(self.last_seq + 1, format_ts(moment), self.head, kind, payload, turn, key)
        try:
            line = encode(envelope, moment, self._context)
            _write_all(self._fd, line + b"\n")
        except BaseException:
            self._context.reset()  # what was written is not known: the next line starts a stretch
            raise
        if self.derived:
            self.written += line + b"\n"
        if self.sync:
            batch = active()
            if batch is None:
                self._sync()
            else:  # flushed at the batch's end, with the folder when this line created the file
                batch.wrote(self.directory / SPINE, created=self._created)
                self._created = False
        self.size += len(line) + 1
        self.last_seq, self.head = envelope.seq, line_hash(line)
        for listener in self.listeners:
            listener(envelope, self.size, self.head)
        return envelope

    def _sync(self) -> None:
        os.fdatasync(self._fd)
        if self._created:  # the new file's directory entry must be durable too, once
            fsync_dir(self.directory)
            self._created = False

    def set_aside(self, end: int, keep: Path, *, now: datetime | None = None) -> bytes:
        """Move every byte after `end` into the new file `keep` (0600), cut the spine there, record it.

        `end` is where the trusted lines stop (`SpineRead.end`). The moved bytes are durable in `keep`
        before the spine loses them; `spine.repaired` then continues the chain from the last kept line.
        """
        size = os.fstat(self._fd).st_size
        tail = os.pread(self._fd, size - end, end)
        _write_new(keep, tail)
        os.ftruncate(self._fd, end)
        os.fsync(self._fd)
        self.size, self.head, self.last_seq = end, None, 0
        self._load_tail()
        self.append(
            "spine.repaired", {"offset": end, "dropped_bytes": len(tail), "dropped_hash": line_hash(tail)}, now=now
        )
        return tail

    def replace(self, data: bytes) -> None:
        """Replace the whole spine by `data` atomically (`hz.session.compaction`), and go on after it."""
        from hz.fsio import atomic_write

        atomic_write(self.directory / SPINE, data)
        os.close(self._fd)
        self._fd = open_spine(self.directory / SPINE, os.O_RDWR | os.O_APPEND)
        self.size, self.head, self.last_seq = 0, None, 0
        self._load_tail()

    def _load_tail(self) -> None:
        self._context.reset()
        size = os.fstat(self._fd).st_size
        end, last_line = _last_line(self._fd, size)
        if end < size:
            self._cut(end, size)
        self.size = end
        if last_line is None:
            return
        self.head = line_hash(last_line)
        seq = _seq_of(last_line)
        self.last_seq = seq if seq is not None else _highest_seq(self.directory / SPINE)

    def _cut(self, end: int, size: int) -> None:
        torn = os.pread(self._fd, size - end, end)
        os.ftruncate(self._fd, end)
        os.fsync(self._fd)
        self._repair = {"offset": end, "dropped_bytes": size - end, "dropped_hash": line_hash(torn)}


def _validated(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    from pydantic import ValidationError

    from hz.session.vocabulary import validate_payload

    try:
        return validate_payload(kind, data)
    except (ValueError, ValidationError) as exc:
        raise SpineError(f"refused to append {kind}: {_first_error(exc)}") from None


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        loc = ".".join(str(part) for part in first["loc"])
        return f"{loc}: {first['msg']}" if loc else str(first["msg"])
    return str(exc)


def _write_new(path: Path, data: bytes) -> None:
    """A new private file holding `data`, durable with its directory entry; never overwrites one."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(path.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _last_line(fd: int, size: int) -> tuple[int, bytes | None]:
    """(offset after the last newline, the last complete line) reading backwards in chunks."""
    chunk = 65536
    start = size
    tail = b""
    while start > 0:
        start = max(0, start - chunk)
        tail = os.pread(fd, size - start, start)
        last_nl = tail.rfind(b"\n")
        if last_nl < 0:
            continue
        before = tail.rfind(b"\n", 0, last_nl)
        if before >= 0 or start == 0:
            return start + last_nl + 1, tail[before + 1 : last_nl]
    return 0, None


def _seq_of(line: bytes) -> int | None:
    """The seq a line of either format holds, None when it holds none."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    seq = raw.get("n", raw.get("seq")) if type(raw) is dict else None
    return seq if type(seq) is int and seq >= 1 else None


def _highest_seq(path: Path) -> int:
    seqs = (_seq_of(raw) for raw in path.read_bytes().split(b"\n")[:-1])
    return max((seq for seq in seqs if seq is not None), default=0)
