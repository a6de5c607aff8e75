"""The day money is booked on: the wall clock's UTC date, whatever `--now` a tick was given.

`--now` moves the schedule only; if it moved the ledger's day too, ticks with other `--now` values would
each find a fresh day's cap within one real day. Kept apart from the gate so that listings import only this.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_day(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d")


def wall_clock() -> datetime:
    return datetime.now(UTC)


def ledger_day() -> str:
    """Today on the wall clock, as the ledger names its days (`YYYY-MM-DD`, UTC)."""
    return utc_day(wall_clock())
