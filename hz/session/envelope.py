"""One spine line: the envelope `{v, seq, ts, prev, turn, kind, key, data}`.

`format_line` and `parse_line` are exact inverses on the bytes of one line (without its newline).
JSON escapes every control character inside strings, so a formatted line never holds a raw newline and
a payload can never smuggle a second line into the spine; `format_line` checks it anyway.

`prev` is `sha256:<hex>` of the previous line's bytes (without the newline), `null` on the first line:
the chain detects truncation, reordering and hand edits (it is not a defence against tampering).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NamedTuple

import orjson

from hz.canonical import fingerprint_bytes
from hz.errors import HzError

ENVELOPE_VERSION = 1


class EnvelopeError(HzError):
    """A spine line that is not a well-formed envelope."""


class Envelope(NamedTuple):
    """One parsed line. A named tuple, not a dataclass: readers build hundreds of thousands of them."""

    seq: int
    ts: str
    prev: str | None
    kind: str
    data: dict[str, Any]
    turn: str | None = None
    key: str | None = None
    v: int = ENVELOPE_VERSION

    def as_dict(self) -> dict[str, Any]:
        return {
            "v": self.v,
            "seq": self.seq,
            "ts": self.ts,
            "prev": self.prev,
            "turn": self.turn,
            "kind": self.kind,
            "key": self.key,
            "data": self.data,
        }


def format_ts(now: datetime) -> str:
    """UTC with milliseconds and a `Z`, so timestamps sort as strings."""
    if now.tzinfo is None:
        raise ValueError("spine timestamps need an aware datetime")
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def line_hash(line: bytes) -> str:
    return fingerprint_bytes(line)


def format_line(envelope: Envelope) -> bytes:
    line = orjson.dumps(envelope.as_dict())
    if b"\n" in line or b"\r" in line:  # pragma: no cover - orjson escapes control characters
        raise EnvelopeError("an envelope would span more than one line")
    return line


def parse_line(line: bytes) -> Envelope:
    """Parse one line (without its newline); raise EnvelopeError when it is not an envelope."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise EnvelopeError(f"not JSON: {exc}") from None
    if type(raw) is dict and len(raw) == 8 and raw.get("v") == ENVELOPE_VERSION and type(raw.get("seq")) is int:
        try:  # the common case, checked field by field below only when something looks off
            envelope = Envelope(raw["seq"], raw["ts"], raw["prev"], raw["kind"], raw["data"], raw["turn"], raw["key"])
        except KeyError:
            pass
        else:
            if _plain(envelope):
                return envelope
    return envelope_from_dict(raw)


def _plain(e: Envelope) -> bool:
    return (
        e.seq >= 1
        and type(e.ts) is str
        and type(e.kind) is str
        and type(e.data) is dict
        and (e.prev is None or type(e.prev) is str)
        and (e.turn is None or type(e.turn) is str)
        and (e.key is None or type(e.key) is str)
    )


def envelope_from_dict(raw: Any) -> Envelope:
    # Hot path of every reader (reindex parses every line): direct lookups, one shape check.
    if type(raw) is not dict or len(raw) != 8:
        raise EnvelopeError("not an envelope {v, seq, ts, prev, turn, kind, key, data}")
    try:
        v, seq, ts, prev, turn, kind, key, data = (
            raw["v"], raw["seq"], raw["ts"], raw["prev"], raw["turn"], raw["kind"], raw["key"], raw["data"]
        )  # fmt: skip
    except KeyError:
        raise EnvelopeError("not an envelope {v, seq, ts, prev, turn, kind, key, data}") from None
    if v != ENVELOPE_VERSION:
        raise EnvelopeError(f"envelope version {v!r} is not {ENVELOPE_VERSION}")
    if type(seq) is not int or seq < 1:
        raise EnvelopeError(f"seq {seq!r} is not a positive integer")
    if type(ts) is not str or type(kind) is not str or type(data) is not dict:
        raise EnvelopeError("ts and kind must be strings and data an object")
    if not (prev is None or type(prev) is str) or not (turn is None or type(turn) is str):
        raise EnvelopeError("prev and turn must be strings or null")
    if not (key is None or type(key) is str):
        raise EnvelopeError("key must be a string or null")
    return Envelope(seq, ts, prev, kind, data, turn, key, v)
