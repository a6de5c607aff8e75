"""Event and lease times as strings: their pattern, their bounds, and the conversions (no pydantic here).

hz.gitstate.types builds the models' annotated types from these; the hook's plain checks
(hz.gitstate.event_shapes) use them as they are, so both say the same about the same string.
"""

from __future__ import annotations

from datetime import UTC, datetime

UTC_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?Z$"  # ASCII digits only
EARLIEST_YEAR = 2000
LATEST_YEAR = 2099


def parses(value: str) -> str:
    datetime.fromisoformat(value.replace("Z", "+00:00"))  # raises ValueError for 2026-13-40
    return value


def in_range(value: str) -> str:
    """Years 2000 to 2099 only: a time far from now (`0001-01-01`, `9999-12-31`) is no receipt hz wrote,
    and arithmetic on it (a margin subtracted, a window added) would overflow in every reader."""
    if not EARLIEST_YEAR <= int(value[:4]) <= LATEST_YEAR:
        raise ValueError(f"{value} is outside {EARLIEST_YEAR}-{LATEST_YEAR}")
    return value


def format_utc(moment: datetime) -> str:
    """The `UtcTime` form of an aware datetime, to the second (fractions dropped). Not strftime: its
    `%Y` writes the year 1 as `1`, which no reader parses back."""
    return moment.astimezone(UTC).replace(microsecond=0, tzinfo=None).isoformat() + "Z"


def parse_utc(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
