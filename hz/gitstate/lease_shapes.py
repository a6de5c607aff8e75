"""A lease record checked with plain Python: what the pre-receive hook runs instead of `LeaseRecord`.

A record is accepted only in the one form hz writes (hz.gitstate.lease_record.LeaseRecord.line: all
nine fields, RFC 8785, a newline), so the plain check accepts exactly what the model accepts in that
form. A record refused here is damaged or forged, which is rare: only then is the model asked for the
words of the refusal, so the hook says exactly what it said before (tests/gitstate/test_event_shapes.py).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from hz.gitstate.event_shapes import HZ_ID, ROLE, Shape, integer, literal, one, string
from hz.gitstate.shapes import MACHINE, TOKEN_MAX
from hz.gitstate.times import UTC_PATTERN, parses

HOLDER = rf"^(?:@[A-Za-z0-9](?:[A-Za-z0-9-]{{0,38}})(?:/{MACHINE})?|actions:[0-9]{{1,20}})$"
_TIME = string(UTC_PATTERN, None, parses)
RECORD = Shape(
    {"v": one, "lease": string(HZ_ID), "holder": string(HOLDER), "role": ROLE, "token": integer(1, TOKEN_MAX),
     "slot": _TIME, "acquired": _TIME, "expires": _TIME, "state": literal("held", "released")},
    {"v": 1, "state": "held"},
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class PlainLease:
    """A lease record in hz's own form: the fields the lease lint and the fence check read."""

    v: int
    lease: str
    holder: str
    role: str
    token: int
    slot: str
    acquired: str
    expires: str
    state: str

    def line(self) -> bytes:
        from hz.canonical import canonical_json

        return canonical_json(asdict(self)) + b"\n"


def plain_lease(data: bytes) -> PlainLease | None:
    """The record in `data` when it is one hz wrote (valid and canonical); None for anything else."""
    try:
        raw = json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if type(raw) is not dict or set(raw) != set(RECORD.fields) or raw["v"] != 1 or type(raw["v"]) is not int:
        return None
    if RECORD.errors(raw):
        return None
    record = PlainLease(**raw)
    return record if record.line() == data else None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON hz writes")
