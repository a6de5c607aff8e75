"""The source cache, `$HZ_HOME/heinzel/sources/`: the last fetch of each source and what each slot saw.

One file per source identity (scheme, source, query, window, facets, stage), `<key>.json`, holds the
canonical records of the last fetch, their facet fingerprints, `as_of`, the validators a conditional
request needs (ETag, Last-Modified, per-page ETags) and the cursor; it is rewritten only by a fetch.
A small `<key>.staged.json` maps each slot it answered to the facet values that slot saw, kept
content-addressed in `blobs/`, so a turn resumed after a crash reads exactly what its gather step
fingerprinted without fetching again. Every file is written atomically
(0600) before anyone is woken by it; a file that cannot be read is treated as absent, because losing
the cache costs only a refetch.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from hz.canonical import fingerprint
from hz.fsio import atomic_write, private_dir
from hz.sources.window import Window, iso, parse_time, utc

VERSION = 1
MAX_STAGED = 256  # slots remembered per source; older ones fall back to the ordinary recheck rule


@dataclass
class Entry:
    key: str
    identity: Mapping[str, Any]
    slot: datetime
    as_of: datetime
    records: Any
    fingerprints: Mapping[str, str]
    covers: tuple[datetime | None, datetime | None] = (None, None)
    validators: Mapping[str, Any] = field(default_factory=dict)
    cursor: str | None = None
    staged: dict[str, str] = field(default_factory=dict)  # slot (ISO) -> blob key of the facets it saw

    def covers_window(self, window: Window) -> bool:
        """Whether the stored records are complete for every item `window` can hold."""
        low, high = self.covers
        if low is not None and (window.start is None or window.start < low):
            return False
        return high is None or window.end == high

    def due(self, now: datetime, recheck: timedelta | None) -> bool:
        """A source is due again once the shortest recheck of its watchers has passed (default: every tick)."""
        if now <= self.as_of:
            return False  # fetched in this very tick
        return recheck is None or now >= self.as_of + recheck

    def to_json(self) -> dict[str, Any]:
        return {
            "v": VERSION,
            "key": self.key,
            "identity": dict(self.identity),
            "slot": slot_key(self.slot),
            "as_of": slot_key(self.as_of),  # full precision: "fetched in this very tick" compares it
            "covers": [iso(t) if t else None for t in self.covers],
            "records": self.records,
            "fingerprints": dict(self.fingerprints),
            "validators": dict(self.validators),
            "cursor": self.cursor,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        low, high = data["covers"]
        return cls(
            key=str(data["key"]),
            identity=data["identity"],
            slot=_time(data["slot"]),
            as_of=_time(data["as_of"]),
            records=data["records"],
            fingerprints=dict(data["fingerprints"]),
            covers=(parse_time(low), parse_time(high)),
            validators=dict(data.get("validators") or {}),
            cursor=data.get("cursor"),
        )


def slot_key(slot: datetime) -> str:
    """Full-precision UTC time: two slots a few milliseconds apart are two slots."""
    return utc(slot).isoformat().replace("+00:00", "Z")


def _time(text: str) -> datetime:
    moment = parse_time(text)
    if moment is None:
        raise ValueError(f"not a time: {text!r}")
    return moment


class SourceCache:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> SourceCache:
        from hz.config import private_home

        return cls(private_home(environ) / "heinzel" / "sources")

    def path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def staged_path(self, key: str) -> Path:
        return self.root / f"{key}.staged.json"

    def read(self, key: str) -> Entry | None:
        data = self._load(self.path(key))
        if data is None or data.get("v") != VERSION:
            return None
        try:
            entry = Entry.from_json(data)
        except (KeyError, TypeError, ValueError):
            return None
        staged = self._load(self.staged_path(key)) or {}
        entry.staged = {str(k): str(v) for k, v in staged.items() if isinstance(v, str)}
        return entry

    def write(self, entry: Entry) -> None:
        """The fetched entry, then its staged slots (the entry first: a slot never points past it)."""
        private_dir(self.root)
        atomic_write(self.path(entry.key), _dumps(entry.to_json()))
        self._write_staged(entry)

    def _write_staged(self, entry: Entry) -> None:
        atomic_write(self.staged_path(entry.key), _dumps(entry.staged))

    def stage(self, entry: Entry, slot: datetime, facets: Mapping[str, Any], fingerprints: Mapping[str, str]) -> None:
        """Remember the facets `slot` saw: the blob first, then the staged map that points at it.

        The entry itself must already be written (`write`); staging never rewrites its records.
        """
        blob = self.put_blob(facets, fingerprints)
        key = slot_key(slot)
        if entry.staged.get(key) == blob:
            return  # another watcher of this source already staged this slot
        entry.staged[key] = blob
        for old in sorted(entry.staged)[:-MAX_STAGED]:
            del entry.staged[old]
        self._write_staged(entry)

    def staged(self, entry: Entry, slot: datetime) -> tuple[dict[str, Any], dict[str, str]] | None:
        """(facets, fingerprints) `slot` saw, or None when it was not staged or its blob is gone."""
        blob = entry.staged.get(slot_key(slot))
        return None if blob is None else self.get_blob(blob)

    def put_blob(self, facets: Mapping[str, Any], fingerprints: Mapping[str, str]) -> str:
        # Keyed by the facet fingerprints, so the content is hashed once (by the caller), not again here.
        key = fingerprint(dict(fingerprints)).partition(":")[2]
        path = self.root / "blobs" / f"{key}.json"
        if not path.exists():
            atomic_write(path, _dumps({"facets": dict(facets), "fingerprints": dict(fingerprints)}))
        return key

    def get_blob(self, key: str) -> tuple[dict[str, Any], dict[str, str]] | None:
        data = self._load(self.root / "blobs" / f"{key}.json")
        if data is None or not isinstance(data.get("facets"), dict) or not isinstance(data.get("fingerprints"), dict):
            return None  # missing or damaged: the caller fetches again
        if fingerprint(data["fingerprints"]).partition(":")[2] != key:
            return None
        return data["facets"], data["fingerprints"]

    def _entry_files(self) -> list[Path]:
        return [p for p in sorted(self.root.glob("*.json")) if not p.name.endswith(".staged.json")]

    def entries(self) -> list[Entry]:
        if not self.root.is_dir():
            return []
        found = (self.read(p.stem) for p in self._entry_files())
        return [e for e in found if e is not None]

    def prune(self, now: datetime, retention_days: int) -> int:
        """Drop entries and staged slots older than `retention_days` (0 keeps all), then unreferenced blobs."""
        if not self.root.is_dir():
            return 0
        removed = 0
        cutoff = now - timedelta(days=retention_days) if retention_days > 0 else None
        referenced: set[str] = set()
        for path in self._entry_files():
            entry = self.read(path.stem)
            if entry is None or (cutoff is not None and entry.as_of < cutoff):
                removed += _unlink(path) + _unlink(self.staged_path(path.stem))
                continue
            kept = {s: b for s, b in entry.staged.items() if cutoff is None or (parse_time(s) or now) >= cutoff}
            if kept != entry.staged:
                entry.staged = kept
                self._write_staged(entry)
            referenced.update(kept.values())
        for blob in sorted((self.root / "blobs").glob("*.json")):
            if blob.stem not in referenced:
                removed += _unlink(blob)
        return removed

    @staticmethod
    def _load(path: Path) -> dict[str, Any] | None:
        try:  # a FIFO is never waited on, a folder or a device never read: an entry hz did not write
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read()
        import orjson

        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None
        return data if isinstance(data, dict) else None


def _dumps(value: Any) -> bytes:
    import orjson

    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _unlink(path: Path) -> int:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        return 1
    return 0


def prune_sources(environ: Mapping[str, str], now: datetime) -> int:
    """Prune the user's source cache under `[heinzel] retention_days` (for `hz heinzel prune`)."""
    from hz.config import load_user_config

    return SourceCache.from_environ(environ).prune(now, load_user_config(environ).heinzel.retention_days)
