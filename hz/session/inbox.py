"""The inbox `<agent dir>/inbox/<request id>.json`: a message is on disk before anything acts on it.

A chat message for a Heinzelmännchen is written here first, atomically and idempotently by its request
id (writing the same id twice keeps the first), so a message that finds the spine's lock held, or a
process that dies right after, loses nothing: the writer picks it up at its next step boundary and
records `turn.steered` or `turn.requested` with the request id. The file holds the message's text
(the spine never does) and expires with the bodies (`retention_days`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from hz.canonical import fingerprint_bytes
from hz.fsio import atomic_write
from hz.session.bodies import prune_files
from hz.session.envelope import format_ts

INBOX = "inbox"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_HEADER = b'{"hz_request":1,'


@dataclass(frozen=True)
class Request:
    request_id: str
    received: str
    when_busy: str  # "steer" (reach the running turn) or "follow-up" (the next turn)
    text: str
    hash: str  # sha256 of the text, what the spine records
    cause: str | None = None  # a wake a tick left while the agent was awake: its cause and key, no text
    key: str | None = None

    def as_dict(self) -> dict[str, Any]:
        found = {
            "hz_request": 1,
            "request_id": self.request_id,
            "received": self.received,
            "when_busy": self.when_busy,
            "text": self.text,
            "hash": self.hash,
        }
        if self.cause is not None and self.key is not None:
            found.update(cause=self.cause, key=self.key)
        return found


def request_path(agent_dir: Path, request_id: str) -> Path:
    if not _ID.match(request_id):
        raise ValueError(f"not a request id: {request_id!r}")
    return agent_dir / INBOX / f"{request_id}.json"


def put_request(
    agent_dir: Path, request_id: str, text: str, *, now: datetime, when_busy: str = "steer"
) -> tuple[Request, bool]:
    """Store a message; return it and whether it was new (False: that request id was already here)."""
    path = request_path(agent_dir, request_id)
    existing = _load(path)
    if existing is not None:
        return existing, False
    request = Request(request_id, format_ts(now), when_busy, text, fingerprint_bytes(text.encode()))
    atomic_write(path, orjson.dumps(request.as_dict()))
    return request, True


def put_wake(agent_dir: Path, cause: str, key: str, *, now: datetime) -> tuple[Request, bool]:
    """A tick's wake for an agent another process holds: kept here until the running turn (or a later
    tick) takes it in as `turn.requested`; idempotent by its key, whose digest names the file."""
    request_id = "wake-" + fingerprint_bytes(key.encode()).removeprefix("sha256:")[:40]
    path = request_path(agent_dir, request_id)
    existing = _load(path)
    if existing is not None:
        return existing, False
    request = Request(request_id, format_ts(now), "follow-up", "", fingerprint_bytes(b""), cause, key)
    atomic_write(path, orjson.dumps(request.as_dict()))
    return request, True


def list_requests(agent_dir: Path) -> list[Request]:
    """Every stored request, oldest first (by receipt time, then id)."""
    folder = agent_dir / INBOX
    if not folder.is_dir() or folder.is_symlink():
        return []
    found = [_load(folder / name) for name in os.listdir(folder) if name.endswith(".json")]
    return sorted((r for r in found if r is not None), key=lambda r: (r.received, r.request_id))


MAX_REQUEST_BYTES = 1024 * 1024  # a chat message, with room to spare; more is not a file hz wrote


def _load(path: Path) -> Request | None:
    """The stored request; None for anything hz did not write there (a link, a FIFO, a folder, a file too
    large, text that is not a request): passed over, never waited on, never a crash of the turn."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_REQUEST_BYTES:
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = orjson.loads(handle.read(MAX_REQUEST_BYTES))
            fields = (raw["request_id"], raw["received"], raw["when_busy"], raw["text"], raw["hash"])
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return None
    if not all(isinstance(f, str) for f in fields):
        return None
    cause, key = raw.get("cause"), raw.get("key")
    if isinstance(cause, str) and isinstance(key, str):
        return Request(*fields, cause=cause, key=key)
    return Request(*fields)


def prune_requests(agent_dir: Path, *, now: datetime, retention_days: int) -> list[Path]:
    if retention_days <= 0:
        return []
    return prune_files(agent_dir / INBOX, ".json", _HEADER, now - timedelta(days=retention_days))
