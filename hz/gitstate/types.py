"""The only field types an event on `hz/state` may use: hash, id, key, enum, number, UTC time, handle, asset.

There is deliberately no free string type here. Every string type is a pattern that cannot hold a
sentence (no spaces, a fixed shape), so a model built from these types cannot carry a draft, a lesson or
an address. A test walks every event model and fails when a field uses anything else.
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints

from hz.gitstate import event_shapes as patterns
from hz.gitstate import shapes
from hz.gitstate.lease_shapes import HOLDER
from hz.gitstate.shapes import MACHINE as MACHINE
from hz.gitstate.shapes import TOKEN_MAX as TOKEN_MAX
from hz.gitstate.times import EARLIEST_YEAR as EARLIEST_YEAR
from hz.gitstate.times import LATEST_YEAR as LATEST_YEAR
from hz.gitstate.times import UTC_PATTERN, in_range, parses
from hz.gitstate.times import format_utc as format_utc
from hz.gitstate.times import parse_utc as parse_utc

ULID = "[0-9A-HJKMNP-TV-Z]{26}"

Hash = Annotated[str, StringConstraints(pattern=patterns.HASH)]
"""A content fingerprint, `sha256:<64 hex>` (see hz.canonical)."""

HzId = Annotated[str, StringConstraints(pattern=patterns.HZ_ID)]
"""A Heinzelmännchen id; also the id of its lease."""

Id = Annotated[str, StringConstraints(pattern=patterns.MINTED)]
"""Any other minted id (a turn, a request): a ULID, with one of the prefixes hz mints (`t-`, `rq-`,
`am-`) or none; a prefix of free letters would carry eight letters of anything."""

Key = Annotated[str, StringConstraints(pattern=shapes.KEY_PATTERN, max_length=shapes.MAX_KEY)]
"""An idempotency key: the Heinzelmännchen id, `@`, then one of the occasions of hz.gitstate.shapes."""

Handle = Annotated[str, StringConstraints(pattern=patterns.HANDLE)]
"""A roster handle such as `@priya`."""

Holder = Annotated[str, StringConstraints(pattern=HOLDER)]
"""Who holds a lease: a member on one machine, `@priya/m-1a2b3c4d`, or a GitHub Actions run,
`actions:<run id>`. A bare `@priya` is what hz wrote before holders named machines; it stays readable."""

AssetRef = Annotated[str, StringConstraints(pattern=shapes.ASSET_PATTERN, max_length=shapes.MAX_ASSET)]
"""Where an output lives, `<scheme>:<path>` (`state:reports/w45.md`, `doc:checkout/weekly-report`)."""

Slug = Annotated[str, StringConstraints(pattern=shapes.SLUG_PATTERN)]
"""A declared name (an input of a contract), used as a map key."""

_UTC_PATTERN = UTC_PATTERN
_parses = parses
_in_range = in_range


AnyUtcTime = Annotated[str, StringConstraints(pattern=_UTC_PATTERN), AfterValidator(_parses)]
"""A UTC timestamp of any year: a lease record's times, which the lease lint bounds with its own words."""

UtcTime = Annotated[str, StringConstraints(pattern=_UTC_PATTERN), AfterValidator(_parses), AfterValidator(_in_range)]
"""An event's UTC timestamp, in 2000–2099: `2026-10-30T15:00:00Z` (fractions of a second allowed)."""

Count = Annotated[int, Field(ge=0, le=10**12)]
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
