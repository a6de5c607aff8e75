"""Cron schedules in IANA time zones: which slots fell due between two instants, exactly across DST.

A cron expression names wall-clock times in its zone; a slot is the UTC instant such a wall-clock time
happens. Two days a year the wall clock is not a line, and this module settles them like classic cron:

* Spring forward (a gap): a wall-clock time inside the gap never happens. A cron that names fixed hours
  (`30 2 * * *`) still fires once that day, at the first instant after the gap (03:00 local in New
  York); a cron that matches every hour (`*/15 * * * *`) simply has no slots in the missing hour.
* Fall back (a repeated hour): a cron that names fixed hours fires once, at the first occurrence; a cron
  that matches every hour fires in both occurrences, so an hourly cron has 25 slots that day, each real
  hour once.

Slots are timezone-aware datetimes in UTC. Functions take instants in and never read the clock.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from hz.errors import HzError

if TYPE_CHECKING:  # croniter (and dateutil under it) is imported on first use: the idle tick skips it
    from croniter import croniter

CatchUp = Literal["latest", "all", "skip"]
CATCH_UP_POLICIES: tuple[CatchUp, ...] = ("latest", "all", "skip")

# Wall-clock order and UTC order of slots differ by at most one DST shift (≤ 2 h anywhere today), so a
# candidate is final once the wall-clock cursor is this far past it.
_MARGIN = timedelta(hours=3)
_SECOND = timedelta(seconds=1)
_MINUTE = timedelta(minutes=1)
_LOCALTIME = Path("/etc/localtime")


class ScheduleError(HzError):
    """A cron expression or time zone that cannot be evaluated."""


@dataclass(frozen=True)
class Cron:
    """One cron expression and the IANA zone its wall-clock times are read in."""

    expr: str
    tz: str = "UTC"

    @property
    def zone(self) -> ZoneInfo:
        return _zone(self.tz)

    @property
    def every_hour(self) -> bool:
        """True when the hour field matches all 24 hours: then slots follow real, not wall-clock, hours."""
        return _every_hour(self.expr)

    def validate(self) -> None:
        _zone(self.tz)
        _every_hour(self.expr)


def default_timezone(configured: str | None, environ: Mapping[str, str], localtime: Path = _LOCALTIME) -> str:
    """The zone of schedule entries that name none: `[hz] timezone`, else the system's zone, else UTC.

    The system zone is `$TZ` when it is an IANA name, else the name `/etc/localtime` links to.
    """
    if configured:
        _zone(configured)  # a configured zone that does not exist is an error, not a silent fallback
        return configured
    candidates = [environ.get("TZ", "").removeprefix(":") or None]
    try:
        target = localtime.resolve(strict=True)
        if "zoneinfo" in target.parts:
            candidates.append("/".join(target.parts[target.parts.index("zoneinfo") + 1 :]))
    except OSError:
        pass
    for name in candidates:
        if name:
            try:
                _zone(name)
                return name
            except ScheduleError:
                continue
    return "UTC"


def crons_from(value: object, default_tz: str = "UTC") -> tuple[Cron, ...]:
    """Normalize a frontmatter `hz.schedule` value (None, a cron string, `{cron, tz}`, or a list of them).

    Model objects with `cron` and `tz` attributes are accepted as well as mappings.
    """
    if value is None:
        return ()
    if isinstance(value, str | Cron | Mapping) or hasattr(value, "cron"):
        return (_one_cron(value, default_tz),)
    if isinstance(value, Sequence):
        return tuple(_one_cron(item, default_tz) for item in value)
    raise ScheduleError(f"not a schedule: {value!r}", hint="use a cron string, {cron, tz} or a list of them")


def _one_cron(value: object, default_tz: str) -> Cron:
    if isinstance(value, Cron):
        return value
    if isinstance(value, str):
        return Cron(value, default_tz)
    if isinstance(value, Mapping):
        expr, tz = value.get("cron"), value.get("tz")
    else:
        expr, tz = getattr(value, "cron", None), getattr(value, "tz", None)
    if not isinstance(expr, str) or not (tz is None or isinstance(tz, str)):
        raise ScheduleError(f"not a schedule entry: {value!r}", hint="write a cron string or {cron, tz}")
    return Cron(expr, tz or default_tz)


def due_slots(crons: Iterable[Cron], start: datetime, end: datetime, *, limit: int | None = None) -> list[datetime]:
    """The slots `start < slot <= end` of all `crons`, ascending, each instant once (earliest `limit`)."""
    _require_aware(start, end)
    merged = heapq.merge(*(_forward(cron, start) for cron in crons))
    slots: list[datetime] = []
    for slot in merged:
        if slot > end or (limit is not None and len(slots) >= limit):
            break
        if not slots or slot != slots[-1]:
            slots.append(slot)
    return slots


def next_slot(crons: Iterable[Cron], after: datetime) -> datetime | None:
    """The first slot strictly after `after`, or None when there are no crons."""
    _require_aware(after)
    firsts = [slot for cron in crons for slot in islice(_forward(cron, after), 1)]
    return min(firsts, default=None)


def latest_slot(crons: Iterable[Cron], end: datetime, *, after: datetime | None = None) -> datetime | None:
    """The last slot `<= end` (and `> after` when given), found backwards so long gaps stay cheap."""
    _require_aware(end, *(() if after is None else (after,)))
    best: datetime | None = None
    for cron in crons:
        for slot in islice(_backward(cron, end), 1):
            if (after is None or slot > after) and (best is None or slot > best):
                best = slot
    return best


def slots_to_run(
    crons: Sequence[Cron],
    *,
    since: datetime,
    now: datetime,
    policy: CatchUp,
    grace: timedelta = timedelta(minutes=10),
    limit: int | None = None,
) -> list[datetime]:
    """The slots a job should run now, given it last evaluated at `since`, under a `catch_up` policy.

    `latest` runs only the newest slot that fell due, `all` runs every one of them in order (at most
    `limit` per call), `skip` runs the newest slot only while it is still on time (at most `grace` old)
    and drops missed ones.
    """
    if policy == "all":
        return due_slots(crons, since, now, limit=limit)
    latest = latest_slot(crons, now, after=since)
    if latest is None or (policy == "skip" and now - latest > grace):
        return []
    return [latest]


def _forward(cron: Cron, start: datetime) -> Iterator[datetime]:
    """The slots of one cron strictly after `start`, ascending and without duplicates.

    Away from DST changes wall-clock order is UTC order and each slot is final at once. Near a change a
    slot waits in `pending` until the wall-clock cursor is `_MARGIN` past it.
    """
    zone, every_hour = cron.zone, cron.every_hour
    margin = timedelta(0) if _stable(start, zone) else _MARGIN
    cursor = _iterator(cron.expr, _wall(start, zone) - margin)
    pending: list[tuple[datetime, datetime]] = []  # (slot, wall-clock time it came from)
    last: datetime | None = None
    while True:
        wall = _step(cursor, backwards=False)
        ready = []
        while pending and (wall is None or pending[0][1] + _MARGIN <= wall):
            ready.append(heapq.heappop(pending)[0])
        if wall is not None:
            slots = [slot for slot in _instants(wall, zone, every_hour) if slot > start]
            if len(slots) == 1 and not pending and _stable(slots[0], zone):
                ready.append(slots[0])
            else:
                for slot in slots:
                    heapq.heappush(pending, (slot, wall))
        for slot in ready:
            if slot != last:
                last = slot
                yield slot
        if wall is None:
            return


def _backward(cron: Cron, end: datetime) -> Iterator[datetime]:
    """The slots of one cron at or before `end`, descending and without duplicates (see `_forward`)."""
    zone, every_hour = cron.zone, cron.every_hour
    margin = _MINUTE if _stable(end, zone) else _MARGIN
    cursor = _iterator(cron.expr, _wall(end, zone) + margin)
    pending: list[tuple[float, datetime, datetime]] = []  # max-heap by slot
    last: datetime | None = None
    while True:
        wall = _step(cursor, backwards=True)
        ready = []
        while pending and (wall is None or pending[0][2] - _MARGIN >= wall):
            ready.append(heapq.heappop(pending)[1])
        if wall is not None:
            slots = [slot for slot in _instants(wall, zone, every_hour) if slot <= end]
            if len(slots) == 1 and not pending and _stable(slots[0], zone):
                ready.append(slots[0])
            else:
                for slot in slots:
                    heapq.heappush(pending, (-slot.timestamp(), slot, wall))
        for slot in ready:
            if slot != last:
                last = slot
                yield slot
        if wall is None:
            return


def _stable(instant: datetime, zone: ZoneInfo) -> bool:
    """No UTC-offset change within `_MARGIN` of `instant`: there wall-clock order is UTC order."""
    return (instant - _MARGIN).astimezone(zone).utcoffset() == (instant + _MARGIN).astimezone(zone).utcoffset()


def _step(cursor: croniter, *, backwards: bool) -> datetime | None:
    """The next wall-clock match, or None when the expression never matches again (`0 0 30 2 *`)."""
    from croniter import CroniterBadDateError

    try:
        return cursor.get_prev(datetime) if backwards else cursor.get_next(datetime)
    except CroniterBadDateError:
        return None


def _instants(wall: datetime, zone: ZoneInfo, every_hour: bool) -> tuple[datetime, ...]:
    """The UTC instants a naive wall-clock time stands for under the DST rules in the module docstring."""
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    second = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    if first == second:
        return (first,)
    first_real = _wall(first, zone) == wall
    if first_real and _wall(second, zone) == wall:  # the repeated hour of a fall-back day
        return (first, second) if every_hour else (first,)
    if first_real:
        return (first,)
    # a gap: `second` lies before the transition and `first` after it
    return () if every_hour else (_transition(second, first, zone),)


def _transition(before: datetime, after: datetime, zone: ZoneInfo) -> datetime:
    """The first instant in (before, after] whose UTC offset is the one `after` has."""
    target = after.astimezone(zone).utcoffset()
    low, high = before, after
    while high - low > _SECOND:
        mid = low + (high - low) / 2
        if mid.astimezone(zone).utcoffset() == target:
            high = mid
        else:
            low = mid
    return high.replace(microsecond=0)


def _wall(instant: datetime, zone: ZoneInfo) -> datetime:
    return instant.astimezone(zone).replace(tzinfo=None, fold=0)


def _require_aware(*instants: datetime) -> None:
    for instant in instants:
        if instant.tzinfo is None or instant.utcoffset() is None:
            raise ValueError(f"naive datetime {instant!r}: pass timezone-aware instants")


_local = threading.local()


def _iterator(expr: str, wall: datetime) -> croniter:
    """A croniter positioned at `wall`; one parsed instance per expression and thread, since parsing costs."""
    cache: dict[str, croniter] | None = getattr(_local, "iterators", None)
    if cache is None:
        cache = _local.iterators = {}
    iterator = cache.get(expr)
    if iterator is None:
        from croniter import croniter

        _every_hour(expr)  # raises ScheduleError for a bad expression
        iterator = cache[expr] = croniter(expr, wall)
    iterator.set_current(wall, force=True)
    return iterator


@lru_cache(maxsize=1024)
def _every_hour(expr: str) -> bool:
    from croniter import croniter

    try:
        fields = croniter.expand(expr)[0]
    except (ValueError, KeyError) as exc:
        hint = "five fields: minute hour day-of-month month day-of-week"
        raise ScheduleError(f"invalid cron expression {expr!r}: {exc}", hint=hint) from exc
    hours = fields[1]
    return hours == ["*"] or set(hours) == set(range(24))


@lru_cache(maxsize=256)
def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ScheduleError(f"unknown time zone {name!r}", hint="use an IANA name such as Europe/Berlin") from exc
