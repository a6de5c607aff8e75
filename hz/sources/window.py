"""`window`: the half-open time range `[slot − window, slot)` an input is restricted to.

The same slot always gives the same range, so "last week" means the same items on every machine and
in every retry of that slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


def utc(moment: datetime) -> datetime:
    """`moment` in UTC; a naive time is taken to be UTC already."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass(frozen=True)
class Window:
    start: datetime | None  # None: no lower bound (the input has no `window`)
    end: datetime  # the slot itself, excluded

    @classmethod
    def of(cls, slot: datetime, width: timedelta | None) -> Window:
        end = utc(slot)
        return cls(None if width is None else end - width, end)

    def __contains__(self, moment: object) -> bool:
        if not isinstance(moment, datetime):
            return False
        at = utc(moment)
        return at < self.end and (self.start is None or at >= self.start)

    def to_json(self) -> dict[str, str | None]:
        return {"start": iso(self.start) if self.start else None, "end": iso(self.end)}


def iso(moment: datetime) -> str:
    """Seconds-precision UTC ISO text with a `Z`: the one way sources write times."""
    return utc(moment).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def parse_time(text: str | None) -> datetime | None:
    """An ISO 8601 time as an aware UTC datetime; None for empty or unreadable text."""
    if not text:
        return None
    try:
        return utc(datetime.fromisoformat(text.strip().replace("Z", "+00:00")))
    except ValueError:
        return None
