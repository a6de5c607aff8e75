"""The compact spine line (format 2), and how it reads back as today's `Envelope`.

A line is a JSON object with short keys: `n` seq, `p` the first 16 hex digits of the previous line's
sha256 (absent on the first line), `t` the time in milliseconds since 1970 or `r` the milliseconds
since the previous line (absent when 0), `u` the turn (null for none), `k` the kind's code
(`compact_rules.KIND_CODES`, or its name), `y` the envelope's key, `d` the payload without what the
reader can tell by itself. Lines of format 1 carry `"v":1`; a line without `v` is format 2.

A line that names its turn (`u`) also carries its absolute time and starts a *stretch*: the lines after
it, until the next one naming a turn, belong to the same turn, count their time from the line before,
and leave out what an earlier line of the stretch said (`compact_rules.USES`). The writer starts a
stretch at its first line, whenever the turn changes, and every `STRETCH` lines, so a reader that
starts in the middle of a spine (the index's catch-up) reads back at most that many lines to learn
where it is (`context_before`).

What leaving a field out means is fixed per field: its default (`DEFAULTS`), what follows from the
same line (`DERIVED`), or the stretch's value (`USES`); a field that none of these would give back is
written, as null when the payload lacks it. Every payload the writer validated reads back equal.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from hz.session.compact_rules import (
    BODY_REFS,
    DEFAULTS,
    DERIVED,
    HASH_MAPS,
    HASHED,
    KIND_CODES,
    KIND_NAMES,
    SETS,
    TYPICAL,
    USES,
)
from hz.session.envelope import Envelope, EnvelopeError

PREV_CHARS = 16  # hex digits of the previous line's hash a line keeps: 64 bits find any accidental change
STRETCH = 32  # lines at most between two that name their turn and time
_PREFIX = "sha256:"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_UNKNOWN: Any = object()  # the turn or time before a stretch starts: a line needing it is not readable


@dataclass
class Context:
    """Where a reader or the writer stands: the stretch's turn, the last line's time, what it said."""

    turn: Any = _UNKNOWN
    ms: int | None = None
    slots: dict[str, Any] = field(default_factory=dict)
    lines: int = 0  # lines since the stretch started (the writer's count)

    def copy(self) -> Context:
        return Context(self.turn, self.ms, dict(self.slots), self.lines)

    def reset(self) -> None:
        self.turn, self.ms, self.slots, self.lines = _UNKNOWN, None, {}, 0


# --- times and hashes ----------------------------------------------------------------------------

_SECONDS: dict[int, str] = {}


def ms_of(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def ts_of(ms: int) -> str:
    """The envelope's `ts` text (as `format_ts` writes it) of a time in milliseconds."""
    seconds, millis = divmod(ms, 1000)
    text = _SECONDS.get(seconds)
    if text is None:
        if len(_SECONDS) > 4096:  # lines of one stretch share seconds; an old second is not asked again
            _SECONDS.clear()
        text = _SECONDS[seconds] = (_EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{millis:03d}Z"


def _short_hash(value: Any) -> Any:
    if type(value) is str and len(value) == 71 and value.startswith(_PREFIX):
        try:
            raw = bytes.fromhex(value[7:])
        except ValueError:
            return value
        if raw.hex() == value[7:]:  # lower case only: upper-case hex would not read back the same
            return base64.urlsafe_b64encode(raw)[:43].decode()
    return value


def _long_hash(value: Any) -> Any:
    if type(value) is str and len(value) == 43 and ":" not in value:
        try:
            return _PREFIX + base64.urlsafe_b64decode(value + "=").hex()
        except ValueError:
            return value
    return value


def _hashes(kind: str, data: dict[str, Any], convert: Any) -> None:
    for name in HASHED.get(kind, ()):
        if name in data:
            data[name] = convert(data[name])
    for name in HASH_MAPS.get(kind, ()):
        found = data.get(name)
        if type(found) is dict:
            data[name] = {k: convert(v) for k, v in found.items()}
    if kind in BODY_REFS:
        ref = data.get("body_ref")
        if type(ref) is dict and "hash" in ref:
            data["body_ref"] = {**ref, "hash": convert(ref["hash"])}


# --- payloads ------------------------------------------------------------------------------------


# What a missing field reads as when neither the stretch nor the line gives it.
_FILLS: dict[str, dict[str, Any]] = {k: {**DEFAULTS.get(k, {}), **TYPICAL.get(k, {})} for k in {*DEFAULTS, *TYPICAL}}


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _derived(kind: str, name: str, data: dict[str, Any], key: str | None) -> Any:
    if name == "causes":
        cause = data.get("cause")
        return [cause] if isinstance(cause, str) else []
    if name == "place":
        asset = data.get("asset")
        return asset[5:] if isinstance(asset, str) and asset.startswith("file:") else None
    return [key] if name == "keys" and key is not None else []


def encode_data(kind: str, data: dict[str, Any], key: str | None, slots: dict[str, Any]) -> dict[str, Any]:
    uses, derived = USES.get(kind, {}), DERIVED.get(kind, ())
    defaults = _FILLS.get(kind, {})
    out: dict[str, Any] = {}
    for name, value in data.items():
        slot = uses.get(name)
        if slot is not None and slot in slots:
            if not _same(value, slots[slot]):
                out[name] = value
        elif name in derived:
            if not _same(value, _derived(kind, name, data, key)):
                out[name] = value
        elif name not in defaults or not _same(value, defaults[name]):
            out[name] = value
    for name in (*uses, *derived):  # absent, yet the reader would fill it: say it is absent
        if name not in data and (uses[name] in slots if name in uses else _derived(kind, name, data, key) is not None):
            out[name] = None
    _hashes(kind, out, _short_hash)
    _note(kind, data, slots)
    return out


def decode_data(kind: str, compact: dict[str, Any], key: str | None, slots: dict[str, Any]) -> dict[str, Any]:
    data = dict(compact)
    _hashes(kind, data, _long_hash)
    uses = USES.get(kind)
    if uses:
        for name, slot in uses.items():
            if name not in data and slot in slots:
                value = slots[slot]
                data[name] = dict(value) if type(value) is dict else value
    for name in DERIVED.get(kind, ()):
        if name not in data:
            data[name] = _derived(kind, name, data, key)
    defaults = _FILLS.get(kind)
    if defaults:
        for name, value in defaults.items():
            if name not in data:
                data[name] = type(value)() if type(value) in (list, dict) else value
    if None in data.values():
        data = {k: v for k, v in data.items() if v is not None}
    _note(kind, data, slots)
    return data


def _note(kind: str, data: dict[str, Any], slots: dict[str, Any]) -> None:
    sets = SETS.get(kind)
    if sets:
        for name, slot in sets.items():
            value = data.get(name)
            if value is not None and value != {}:
                slots[slot] = value


# --- lines ---------------------------------------------------------------------------------------


def encode(envelope: Envelope, moment: datetime, context: Context) -> bytes:
    """The compact line of `envelope` (its `prev` the full hash), moving `context` past it."""
    ms = ms_of(moment)
    line: dict[str, Any] = {"n": envelope.seq}
    if envelope.prev is not None:
        line["p"] = envelope.prev[7 : 7 + PREV_CHARS]
    if context.turn is _UNKNOWN or context.turn != envelope.turn or context.ms is None or context.lines >= STRETCH:
        line["t"], line["u"] = ms, envelope.turn
        context.turn, context.slots, context.lines = envelope.turn, {}, 0
    elif ms != context.ms:
        line["r"] = ms - context.ms
    context.ms = ms
    context.lines += 1
    line["k"] = KIND_CODES.get(envelope.kind, envelope.kind)
    if envelope.key is not None:
        line["y"] = envelope.key
    data = encode_data(envelope.kind, envelope.data, envelope.key, context.slots)
    if data:
        line["d"] = data
    return orjson.dumps(line)


def decode(raw: dict[str, Any], chain: str | None, context: Context) -> Envelope:
    """The envelope a compact line stands for, continuing `chain` (the previous line's full hash).

    `prev` is `chain` when the line's `p` agrees with it, else what the line holds (so the caller sees
    the mismatch). Raises EnvelopeError when the line is not a compact envelope or needs a stretch the
    reader does not know.
    """
    seq, kind = raw.get("n"), raw.get("k")
    if type(seq) is not int or seq < 1:
        raise EnvelopeError(f"seq {seq!r} is not a positive integer")
    if type(kind) is int:
        kind = KIND_NAMES.get(kind)
        if kind is None:
            raise EnvelopeError(f"kind code {raw.get('k')!r} is not known")
    elif type(kind) is not str:
        raise EnvelopeError("kind must be a string or a known code")
    p = raw.get("p")
    if p is None:
        prev = None
    elif type(p) is str and chain is not None and chain[7 : 7 + PREV_CHARS] == p:
        prev = chain
    elif type(p) is str:
        prev = p
    else:
        raise EnvelopeError("prev must be a string")
    key, data = raw.get("y"), raw.get("d", {})
    if not (key is None or type(key) is str) or type(data) is not dict:
        raise EnvelopeError("key must be a string and data an object")
    if "u" in raw:
        turn, at = raw["u"], raw.get("t")
        if not (turn is None or type(turn) is str) or type(at) is not int:
            raise EnvelopeError("a line naming its turn needs a string or null turn and a time")
        context.turn, context.slots, context.ms = turn, {}, at
    else:
        step = raw.get("r", 0)
        if context.turn is _UNKNOWN or context.ms is None or type(step) is not int or "t" in raw:
            raise EnvelopeError("the line continues a stretch whose start is not known")
        context.ms += step
    if len(raw) > 8 or not raw.keys() <= _KEYS:
        raise EnvelopeError(f"unknown fields {sorted(raw.keys() - _KEYS)}")
    payload = decode_data(kind, data, key, context.slots)
    try:
        ts = ts_of(context.ms)
    except (OverflowError, ValueError):  # a changed time beyond the years a date can hold: a broken line
        raise EnvelopeError("the line's time is out of range") from None
    return Envelope(seq, ts, prev, kind, payload, context.turn, key)


_KEYS = frozenset("nptrukyd")


def is_compact(raw: Any) -> bool:
    return type(raw) is dict and "v" not in raw


def context_before(fd: int, offset: int) -> Context:
    """The stretch a reader starting at `offset` stands in, read back from the line before it.

    The lines before `offset` were read and trusted earlier; they are only decoded again, back to the
    nearest line that starts a stretch (or a line of format 1, after which the writer starts one).
    """
    chunk = 16384
    start = offset
    while start > 0:
        start = max(0, start - chunk)
        lines = os.pread(fd, offset - start, start).split(b"\n")
        lines.pop()  # empty: the offset is just after a newline
        if start > 0:
            lines.pop(0)  # maybe a fragment
        for index in range(len(lines) - 1, -1, -1):
            try:
                raw = orjson.loads(lines[index])
            except orjson.JSONDecodeError:
                return Context()
            if not is_compact(raw):
                return Context()
            if "u" in raw:
                return _replay(lines[index:])
        chunk *= 4
    return Context()


def _replay(lines: list[bytes]) -> Context:
    context = Context()
    try:
        for line in lines:
            decode(orjson.loads(line), None, context)
    except (EnvelopeError, orjson.JSONDecodeError):
        return Context()
    return context
