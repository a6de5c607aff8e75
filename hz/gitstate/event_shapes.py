"""The shapes of an event, checked with plain Python: what the pre-receive hook runs instead of the models.

The models of hz.gitstate.events (pydantic) say what an event may hold, and they stay the one definition
writers and readers use. A hook process that imported them would pay about 0.4 s before reading the first
line of a push, and a millisecond per event after; these checks hold each field to the same type, bounds,
pattern and order, and report what they find exactly as pydantic reports it (`type`, `loc`, `msg`), so
the lint turns either into the same diagnostics. tests/gitstate/test_event_shapes.py feeds generated and
mutated events to both and asserts the same errors; the models stay the reference (`model_errors`).

Strictness is pydantic's strict mode as the models set it: a string is a `str`, an integer an `int` that
is no `bool`, a number an `int` or `float` that is no `bool`, a list a `list`; `v` is the literal 1
(which, as in pydantic, `True` and `1.0` equal).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from hz.gitstate import shapes
from hz.gitstate.times import UTC_PATTERN, in_range, parses

Error = dict[str, Any]
"""One finding as pydantic's `ValidationError.errors()` lists it: `type`, `loc` (a tuple) and `msg`."""
Check = Callable[[Any, tuple[Any, ...]], list[Error]]

HASH = r"^sha256:[0-9a-f]{64}$"
HZ_ID = rf"^hz-{shapes.ULID}$"
MINTED = rf"^(?:{shapes.PREFIXES}-)?{shapes.ULID}$"
HANDLE = r"^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$"
TOKEN_MAX = shapes.TOKEN_MAX


class EventView(Protocol):
    """What the lint and the hook read of an event: a model (hz.gitstate.events.Event) or a `PlainEvent`."""

    @property
    def kind(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def ts(self) -> str: ...
    @property
    def lease(self) -> str: ...
    @property
    def token(self) -> int: ...
    @property
    def data(self) -> dict[str, Any]: ...


def _error(kind: str, loc: tuple[Any, ...], msg: str) -> list[Error]:
    return [{"type": kind, "loc": loc, "msg": msg}]


def string(pattern: str, max_length: int | None = None, *after: Callable[[str], str]) -> Check:
    """A strict `str` of at most `max_length` characters matching `pattern` (pydantic's order: type, length,
    pattern, then each after-validator, whose ValueError is a `value_error`)."""
    compiled = re.compile(pattern.removeprefix("^").removesuffix("$"))

    def check(value: Any, loc: tuple[Any, ...]) -> list[Error]:
        if type(value) is not str:
            return _error("string_type", loc, "Input should be a valid string")
        if max_length is not None and len(value) > max_length:
            return _error("string_too_long", loc, f"String should have at most {max_length} characters")
        if compiled.fullmatch(value) is None:
            return _error("string_pattern_mismatch", loc, f"String should match pattern '{pattern}'")
        for validator in after:
            try:
                validator(value)
            except ValueError as exc:
                return _error("value_error", loc, f"Value error, {exc}")
        return []

    return check


def literal(*choices: str) -> Check:
    listed = [repr(choice) for choice in choices]
    said = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} or {listed[-1]}"
    allowed = frozenset(choices)

    def check(value: Any, loc: tuple[Any, ...]) -> list[Error]:
        if type(value) is str and value in allowed:
            return []
        return _error("literal_error", loc, f"Input should be {said}")

    return check


def one(value: Any, loc: tuple[Any, ...]) -> list[Error]:
    """`Literal[1]`: pydantic takes any JSON number or boolean equal to 1."""
    if type(value) in (int, float, bool) and value == 1:
        return []
    if type(value) is int and not -(2**63) <= value < 2**63:  # pydantic compares only 64-bit integers
        return _error("int_parsing_size", loc, "Unable to parse input string as an integer, exceeded maximum size")
    return _error("literal_error", loc, "Input should be 1")


def _bounds(value: int | float, loc: tuple[Any, ...], ge: int, le: int) -> list[Error]:
    if not value <= le:  # a NaN fails here first, as in pydantic
        return _error("less_than_equal", loc, f"Input should be less than or equal to {le}")
    if not value >= ge:
        return _error("greater_than_equal", loc, f"Input should be greater than or equal to {ge}")
    return []


def integer(ge: int, le: int) -> Check:
    def check(value: Any, loc: tuple[Any, ...]) -> list[Error]:
        if type(value) is not int:
            return _error("int_type", loc, "Input should be a valid integer")
        return _bounds(value, loc, ge, le)

    return check


def number(ge: int, le: int) -> Check:
    """A strict float: an int is taken (as pydantic takes it), a bool or an int too large for a float is not."""

    def check(value: Any, loc: tuple[Any, ...]) -> list[Error]:
        if type(value) not in (int, float):
            return _error("float_type", loc, "Input should be a valid number")
        try:
            as_float = float(value)
        except OverflowError:
            return _error("float_type", loc, "Input should be a valid number")
        return _bounds(as_float, loc, ge, le)

    return check


def _dictionary(value: Any, loc: tuple[Any, ...]) -> list[Error]:
    """The envelope's `data` (its kind's payload is checked after the envelope holds)."""
    return [] if type(value) is dict else _error("dict_type", loc, "Input should be a valid dictionary")


def _boolean(value: Any, loc: tuple[Any, ...]) -> list[Error]:
    return [] if type(value) is bool else _error("bool_type", loc, "Input should be a valid boolean")


def nullable(inner: Check) -> Check:
    def check(value: Any, loc: tuple[Any, ...]) -> list[Error]:
        return [] if value is None else inner(value, loc)

    return check


def listing(item: Check, max_length: int, min_length: int = 0) -> Check:
    def check(value: Any, loc: tuple[Any, ...]) -> list[Error]:
        if type(value) is not list:
            return _error("list_type", loc, "Input should be a valid list")
        if len(value) > max_length:  # pydantic stops at the first item too many: only this is said
            return _error("too_long", loc, f"List should have at most {max_length} items after validation, "
                          f"not {len(value)}")  # fmt: skip
        found = [error for index, entry in enumerate(value) for error in item(entry, (*loc, index))]
        if not found and len(value) < min_length:
            plural = "item" if min_length == 1 else "items"
            return _error("too_short", loc, f"List should have at least {min_length} {plural} after "
                          f"validation, not {len(value)}")  # fmt: skip
        return found

    return check


def mapping(key: Check, value: Check, max_length: int) -> Check:
    def check(given: Any, loc: tuple[Any, ...]) -> list[Error]:
        if type(given) is not dict:
            return _error("dict_type", loc, "Input should be a valid dictionary")
        if len(given) > max_length:
            return _error("too_long", loc, f"Dictionary should have at most {max_length} items after "
                          "validation, not more")  # fmt: skip
        found: list[Error] = []
        for name, entry in given.items():
            found += key(name, (*loc, name, "[key]")) + value(entry, (*loc, name))
        return found

    return check


@dataclass(frozen=True)
class Shape:
    """A model's fields in its order: required ones, and the defaults of the others (which hz omits)."""

    fields: dict[str, Check]
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def errors(self, raw: dict[str, Any], loc: tuple[Any, ...] = ()) -> list[Error]:
        found: list[Error] = []
        for name, check in self.fields.items():
            if name in raw:
                found += check(raw[name], (*loc, name))
            elif name not in self.defaults:
                found += _error("missing", (*loc, name), "Field required")
        found += [
            error
            for name in raw
            if name not in self.fields
            for error in _error("extra_forbidden", (*loc, name), "Extra inputs are not permitted")
        ]
        return found

    def dump(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The payload as hz writes it: every field that is not at its default (pydantic's exclude_defaults)."""
        return {name: value for name, value in raw.items() if name not in self.defaults or value != self.defaults[name]}


HASH_STR = string(HASH)
KEY = string(shapes.KEY_PATTERN, shapes.MAX_KEY)
ASSET = string(shapes.ASSET_PATTERN, shapes.MAX_ASSET)
SLUG = string(shapes.SLUG_PATTERN)
ID = string(MINTED)
HANDLE_STR = string(HANDLE)
COUNT = integer(0, 10**12)
AMOUNT = number(0, 10**9)
SHARE = number(0, 1)
UTC_TIME = string(UTC_PATTERN, None, parses, in_range)
CAUSE = literal("schedule", "source-changed", "discovered", "asked", "approval", "created", "retry", "stale")
ROLE = literal("owner", "delegate", "actions")
DISPOSITION = literal("drafted", "asked", "learned", "proposed", "skipped", "failed", "abandoned")
REASON = literal(
    "nothing-moved", "check-unmet", "done-when-unmet", "cap", "throttled",
    "fenced", "stopped", "superseded", "timeout", "resumes", "error",
)  # fmt: skip
ACTION = literal("github.issue.comment", "github.pull.create", "jira.issue.comment", "state.file.write")

_ENDED = Shape(
    {
        "turn": ID, "cause": CAUSE, "causes": listing(CAUSE, 16), "keys": listing(KEY, 16, 1),
        "disposition": DISPOSITION, "reason": nullable(REASON), "moved": listing(SLUG, 64), "cost_usd": AMOUNT,
        "tokens": COUNT, "tokens_cached": COUNT, "duration_s": AMOUNT, "contract_fp": nullable(HASH_STR),
        "input_fps": mapping(SLUG, HASH_STR, 64), "draft_hash": nullable(HASH_STR),
    },
    {"causes": [], "reason": None, "moved": [], "cost_usd": 0.0, "tokens": 0, "tokens_cached": 0,
     "duration_s": 0.0, "contract_fp": None, "input_fps": {}, "draft_hash": None},
)  # fmt: skip
PAYLOADS: dict[str, Shape] = {
    "turn.started": Shape(
        {
            "turn": ID,
            "cause": CAUSE,
            "causes": listing(CAUSE, 16),
            "keys": listing(KEY, 16, 1),
            "contract_version": COUNT,
            "contract_fp": HASH_STR,
            "token": integer(1, TOKEN_MAX),
            "role": ROLE,
        },
        {"causes": []},
    ),
    "turn.finished": _ENDED,
    "turn.skipped": _ENDED,
    "draft.placed": Shape({"turn": ID, "key": KEY, "asset": ASSET, "hash": HASH_STR}),
    "approval.observed": Shape(
        {
            "key": KEY,
            "asset": ASSET,
            "approver": HANDLE_STR,
            "share_changed": SHARE,
            "output_fp": HASH_STR,
            "self_approved": _boolean,
        },
        {"self_approved": False},
    ),
    "draft.rejected": Shape({"key": KEY, "asset": ASSET, "by": nullable(HANDLE_STR)}, {"by": None}),
    "draft.superseded": Shape({"key": KEY, "asset": ASSET, "by": KEY}),
    "approval.seconded": Shape({"key": KEY, "asset": ASSET, "approver": HANDLE_STR}),
    "contract.amended": Shape({"version": COUNT, "fingerprint": HASH_STR}),
    "publish.done": Shape({"key": HASH_STR, "draft_key": KEY, "action": ACTION, "target": ASSET, "hash": HASH_STR}),
}

ENVELOPE = Shape(
    {"v": one, "kind": literal(*PAYLOADS), "id": string(HZ_ID), "key": KEY, "ts": UTC_TIME,
     "lease": string(HZ_ID), "token": integer(1, TOKEN_MAX), "data": _dictionary},
    {"v": 1},
)  # fmt: skip


def event_errors(raw: dict[str, Any]) -> list[Error]:
    """The envelope's errors; when it has none, its payload's (their `loc` starts with "data")."""
    found = ENVELOPE.errors(raw)
    if found:
        return found
    return PAYLOADS[raw["kind"]].errors(raw["data"], ("data",))


@dataclass(frozen=True, slots=True)
class PlainEvent:
    """An event whose shapes passed `event_errors`: the fields the lint reads, and the line hz would write."""

    kind: str
    id: str
    key: str
    ts: str
    lease: str
    token: int
    data: dict[str, Any]

    def line(self) -> bytes:
        """The canonical line hz writes for this event (hz.gitstate.events.Event.make, then `line`)."""
        envelope = {"v": 1, "kind": self.kind, "id": self.id, "key": self.key, "ts": self.ts, "lease": self.lease,
                    "token": self.token, "data": PAYLOADS[self.kind].dump(self.data)}  # fmt: skip
        return _canonical(envelope) + b"\n"


def _canonical(envelope: dict[str, Any]) -> bytes:
    """RFC 8785 bytes of a well-shaped event, by the json module's C encoder.

    What such an event holds is ASCII strings (their code points sort as RFC 8785's UTF-16 units do),
    integers below 2**53, booleans, null, and floats only at the top of `data`. The encoder writes an
    integral float as `5.0` where RFC 8785 (ES6 numbers) writes `5`, so those become integers first; any
    other float whose repr has no exponent is already the ES6 form (both are the shortest digits that read
    back); everything else, and any event holding something unusual, goes to the RFC 8785 library.
    Several times faster than the library on a whole event (tests/gitstate/test_event_shapes.py compares).
    """
    data = envelope["data"]
    numbers: dict[str, Any] = {}
    for name, value in data.items():
        if type(value) is float:
            if value.is_integer() and abs(value) < _SAFE_INT:
                numbers[name] = int(value)
            elif not math.isfinite(value) or "e" in repr(value):
                return _library(envelope)
    text = json.dumps({**envelope, "data": {**data, **numbers}} if numbers else envelope, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)  # fmt: skip
    if not text.isascii():
        return _library(envelope)
    return text.encode()


_SAFE_INT = 2**53 - 1


def _library(envelope: dict[str, Any]) -> bytes:
    from hz.canonical import canonical_json

    return canonical_json(envelope)


def plain_event(raw: dict[str, Any]) -> PlainEvent | list[Error]:
    """The event in `raw`, or its errors."""
    found = event_errors(raw)
    if found:
        return found
    return PlainEvent(raw["kind"], raw["id"], raw["key"], raw["ts"], raw["lease"], raw["token"], raw["data"])


def read_plain(data: bytes) -> PlainEvent | None:
    """The event in a file of `hz/state`; None for anything unreadable (as hz.gitstate.double_run.read_event)."""
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if type(raw) is not dict:
        return None
    found = plain_event(raw)
    return None if isinstance(found, list) else found


def model_errors(raw: dict[str, Any]) -> list[Error]:
    """The same check by the models (the reference the plain checks agree with: the tests and bench/hook.py)."""
    from pydantic import ValidationError

    from hz.gitstate.events import PAYLOADS as MODELS
    from hz.gitstate.events import Event

    try:
        event = Event.model_validate(raw)
    except ValidationError as exc:
        return [{"type": e["type"], "loc": tuple(e["loc"]), "msg": e["msg"]} for e in exc.errors()]
    try:
        MODELS[event.kind].model_validate(event.data)
    except ValidationError as exc:
        return [{"type": e["type"], "loc": ("data", *e["loc"]), "msg": e["msg"]} for e in exc.errors()]
    return []
