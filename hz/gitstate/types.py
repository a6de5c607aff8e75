"""The only field types an event on `hz/state` may use: hash, id, key, enum, number, UTC time, handle, asset.

There is deliberately no free string type here. Every string type is a pattern that cannot hold a
sentence (no spaces, a fixed shape), so a model built from these types cannot carry a draft, a lesson or
an address. A test walks every event model and fails when a field uses anything else.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints

from hz.gitstate import shapes

ULID = "[0-9A-HJKMNP-TV-Z]{26}"

Hash = Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")]
"""A content fingerprint, `sha256:<64 hex>` (see hz.canonical)."""

HzId = Annotated[str, StringConstraints(pattern=rf"^hz-{ULID}$")]
"""A Heinzelmännchen id; also the id of its lease."""

Id = Annotated[str, StringConstraints(pattern=rf"^(?:{shapes.PREFIXES}-)?{ULID}$")]
"""Any other minted id (a turn, a request): a ULID, with one of the prefixes hz mints (`t-`, `rq-`,
`am-`) or none; a prefix of free letters would carry eight letters of anything."""

Key = Annotated[str, StringConstraints(pattern=shapes.KEY_PATTERN, max_length=shapes.MAX_KEY)]
"""An idempotency key: the Heinzelmännchen id, `@`, then one of the occasions of hz.gitstate.shapes."""

Handle = Annotated[str, StringConstraints(pattern=r"^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")]
"""A roster handle such as `@priya`."""

MACHINE = "m-[0-9a-f]{8}"
"""A machine's id: random, made once per $HZ_HOME (hz.gitstate.identity), never the host's name."""

Holder = Annotated[
    str,
    StringConstraints(pattern=rf"^(?:@[A-Za-z0-9](?:[A-Za-z0-9-]{{0,38}})(?:/{MACHINE})?|actions:[0-9]{{1,20}})$"),
]
"""Who holds a lease: a member on one machine, `@priya/m-1a2b3c4d`, or a GitHub Actions run,
`actions:<run id>`. A bare `@priya` is what hz wrote before holders named machines; it stays readable."""

AssetRef = Annotated[str, StringConstraints(pattern=shapes.ASSET_PATTERN, max_length=shapes.MAX_ASSET)]
"""Where an output lives, `<scheme>:<path>` (`state:reports/w45.md`, `doc:checkout/weekly-report`)."""

Slug = Annotated[str, StringConstraints(pattern=shapes.SLUG_PATTERN)]
"""A declared name (an input of a contract), used as a map key."""

_UTC_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?Z$"  # ASCII digits only
EARLIEST_YEAR = 2000
LATEST_YEAR = 2099


def _parses(value: str) -> str:
    datetime.fromisoformat(value.replace("Z", "+00:00"))  # raises ValueError for 2026-13-40
    return value


def _in_range(value: str) -> str:
    """Years 2000 to 2099 only: a time far from now (`0001-01-01`, `9999-12-31`) is no receipt hz wrote,
    and arithmetic on it (a margin subtracted, a window added) would overflow in every reader."""
    if not EARLIEST_YEAR <= int(value[:4]) <= LATEST_YEAR:
        raise ValueError(f"{value} is outside {EARLIEST_YEAR}-{LATEST_YEAR}")
    return value


AnyUtcTime = Annotated[str, StringConstraints(pattern=_UTC_PATTERN), AfterValidator(_parses)]
"""A UTC timestamp of any year: a lease record's times, which the lease lint bounds with its own words."""

UtcTime = Annotated[str, StringConstraints(pattern=_UTC_PATTERN), AfterValidator(_parses), AfterValidator(_in_range)]
"""An event's UTC timestamp, in 2000–2099: `2026-10-30T15:00:00Z` (fractions of a second allowed)."""

Count = Annotated[int, Field(ge=0, le=10**12)]
TOKEN_MAX = 2**31 - 1
"""The largest fencing token. Far below 2**53, so every JSON reader keeps it exact (a token that
reached 2**53 would read back rounded); it also fits a signed 32-bit integer. A chain starts at 1 and
grows by one per take-over, so even one take-over a minute takes 4,000 years to get there."""

Token = Annotated[int, Field(ge=1, le=TOKEN_MAX)]
"""A fencing token: increases along a lease's chain, never repeats."""


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


Amount = Annotated[float, Field(ge=0, le=10**9), AfterValidator(_finite)]
"""A non-negative quantity: USD, seconds."""

Share = Annotated[float, Field(ge=0, le=1), AfterValidator(_finite)]
"""A fraction between 0 and 1."""


def format_utc(moment: datetime) -> str:
    """The `UtcTime` form of an aware datetime, to the second (fractions dropped). Not strftime: its
    `%Y` writes the year 1 as `1`, which no reader parses back."""
    return moment.astimezone(UTC).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def parse_utc(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
