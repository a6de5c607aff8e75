"""Cron slots across DST, catch-up policies, and a brute-force check on random crons near transitions."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from croniter import croniter
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.schedule import (
    Cron,
    ScheduleError,
    crons_from,
    default_timezone,
    due_slots,
    latest_slot,
    next_slot,
    slots_to_run,
)

H = timedelta(hours=1)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


def local_day(zone: str, year: int, month: int, day: int) -> tuple[datetime, datetime]:
    """The instants just before the day starts and at its last second, in `zone`."""
    tz = ZoneInfo(zone)
    first = datetime(year, month, day, tzinfo=tz).astimezone(UTC)
    last = (datetime(year, month, day, tzinfo=tz) + timedelta(days=1)).astimezone(UTC) - timedelta(seconds=1)
    return first - timedelta(seconds=1), last


# --- spring forward: a fixed-hour cron inside the gap fires once, at the first instant after it ---


def test_new_york_0230_on_spring_forward_fires_once_at_0300_local() -> None:
    start, end = local_day("America/New_York", 2026, 3, 8)
    slots = due_slots([Cron("30 2 * * *", "America/New_York")], start, end)
    assert slots == [utc(2026, 3, 8, 7, 0)]  # 03:00 EDT, the first valid wall-clock time after the gap
    assert slots[0].astimezone(ZoneInfo("America/New_York")).strftime("%H:%M %Z") == "03:00 EDT"


def test_berlin_0230_on_spring_forward_fires_once_at_0300_local() -> None:
    start, end = local_day("Europe/Berlin", 2026, 3, 29)
    assert due_slots([Cron("30 2 * * *", "Europe/Berlin")], start, end) == [utc(2026, 3, 29, 1, 0)]


def test_the_days_around_spring_forward_keep_their_wall_clock_time() -> None:
    slots = due_slots([Cron("30 2 * * *", "America/New_York")], utc(2026, 3, 6), utc(2026, 3, 11))
    assert slots == [utc(2026, 3, 6, 7, 30), utc(2026, 3, 7, 7, 30), utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 6, 30),
                     utc(2026, 3, 10, 6, 30)]  # fmt: skip


def test_hourly_on_spring_forward_has_23_slots_one_per_real_hour() -> None:
    start, end = local_day("America/New_York", 2026, 3, 8)
    slots = due_slots([Cron("0 * * * *", "America/New_York")], start, end)
    assert len(slots) == 23
    assert all(b - a == H for a, b in itertools.pairwise(slots))


def test_half_past_hourly_on_spring_forward_skips_the_missing_hour() -> None:
    start, end = local_day("America/New_York", 2026, 3, 8)
    slots = due_slots([Cron("30 * * * *", "America/New_York")], start, end)
    assert len(slots) == 23
    assert utc(2026, 3, 8, 6, 30) in slots and utc(2026, 3, 8, 7, 30) in slots  # 01:30 EST, 03:30 EDT
    assert utc(2026, 3, 8, 7, 0) not in slots


# --- fall back: every real hour once; fixed hours once, at the first occurrence ---


def test_hourly_on_fall_back_yields_25_slots_none_doubled() -> None:
    start, end = local_day("America/New_York", 2026, 11, 1)
    slots = due_slots([Cron("0 * * * *", "America/New_York")], start, end)
    assert len(slots) == 25
    assert len(set(slots)) == 25
    assert all(b - a == H for a, b in itertools.pairwise(slots))
    assert slots[0] == utc(2026, 11, 1, 4, 0) and slots[-1] == utc(2026, 11, 2, 4, 0)


def test_hourly_on_berlin_fall_back_yields_25_slots() -> None:
    start, end = local_day("Europe/Berlin", 2026, 10, 25)
    slots = due_slots([Cron("0 * * * *", "Europe/Berlin")], start, end)
    assert len(slots) == 25
    assert utc(2026, 10, 25, 0, 0) in slots and utc(2026, 10, 25, 1, 0) in slots  # 02:00 CEST and 02:00 CET


def test_quarter_hourly_on_fall_back_yields_100_slots() -> None:
    start, end = local_day("America/New_York", 2026, 11, 1)
    slots = due_slots([Cron("*/15 * * * *", "America/New_York")], start, end)
    assert len(slots) == 100
    assert all(b - a == timedelta(minutes=15) for a, b in itertools.pairwise(slots))


def test_fixed_hour_in_the_repeated_hour_fires_only_at_the_first_occurrence() -> None:
    start, end = local_day("America/New_York", 2026, 11, 1)
    assert due_slots([Cron("30 1 * * *", "America/New_York")], start, end) == [utc(2026, 11, 1, 5, 30)]  # EDT


def test_lord_howe_half_hour_shift() -> None:
    # Australia/Lord_Howe falls back from 02:00 to 01:30: the half hour 01:30-02:00 happens twice.
    slots = due_slots([Cron("45 1 * * *", "Australia/Lord_Howe")], utc(2026, 4, 4, 12), utc(2026, 4, 5, 12))
    assert slots == [utc(2026, 4, 4, 14, 45)]  # 01:45 at +11:00, the first occurrence


# --- several crons, limits, boundaries ---


def test_several_crons_merge_in_order_and_dedupe_equal_instants() -> None:
    crons = crons_from(["0 9 * * 1-5", {"cron": "0 14 * * *", "tz": "UTC"}, "0 9 * * 1"], "Europe/Berlin")
    slots = due_slots(crons, utc(2026, 6, 7, 12), utc(2026, 6, 9, 0))  # Sunday noon to Tuesday 00:00 UTC
    assert slots == [utc(2026, 6, 7, 14), utc(2026, 6, 8, 7), utc(2026, 6, 8, 14)]


def test_window_is_start_exclusive_end_inclusive_and_limit_keeps_the_earliest() -> None:
    crons = [Cron("0 * * * *")]
    assert due_slots(crons, utc(2026, 1, 1, 0), utc(2026, 1, 1, 3)) == [utc(2026, 1, 1, h) for h in (1, 2, 3)]
    assert due_slots(crons, utc(2026, 1, 1, 0), utc(2026, 1, 1, 3), limit=2) == [utc(2026, 1, 1, 1), utc(2026, 1, 1, 2)]
    assert due_slots(crons, utc(2026, 1, 1, 3), utc(2026, 1, 1, 3)) == []


def test_next_and_latest_slot() -> None:
    crons = [Cron("30 2 * * *", "America/New_York")]
    assert next_slot(crons, utc(2026, 3, 8, 6, 59)) == utc(2026, 3, 8, 7, 0)
    assert next_slot(crons, utc(2026, 3, 8, 7, 0)) == utc(2026, 3, 9, 6, 30)
    assert latest_slot(crons, utc(2026, 3, 9, 6, 29)) == utc(2026, 3, 8, 7, 0)
    assert latest_slot(crons, utc(2026, 3, 9, 6, 29), after=utc(2026, 3, 8, 7, 0)) is None
    assert next_slot([], utc(2026, 1, 1)) is None


def test_a_cron_that_never_matches_has_no_slots() -> None:
    crons = [Cron("0 0 30 2 *")]
    assert due_slots(crons, utc(2026, 1, 1), utc(2027, 1, 1)) == []
    assert next_slot(crons, utc(2026, 1, 1)) is None
    assert latest_slot(crons, utc(2026, 1, 1)) is None


def test_latest_slot_after_a_long_absence_is_cheap_and_exact() -> None:
    crons = [Cron("* * * * *")]
    assert latest_slot(crons, utc(2026, 5, 1, 12, 0, 30), after=utc(2025, 5, 1)) == utc(2026, 5, 1, 12, 0)


# --- catch_up ---


CRONS = [Cron("0 * * * *")]
SINCE = utc(2026, 1, 1, 0, 30)
NOW = utc(2026, 1, 1, 3, 5)


def test_catch_up_all_runs_every_missed_slot_in_order() -> None:
    slots = slots_to_run(CRONS, since=SINCE, now=NOW, policy="all")
    assert slots == [utc(2026, 1, 1, 1), utc(2026, 1, 1, 2), utc(2026, 1, 1, 3)]


def test_catch_up_latest_runs_only_the_newest_slot() -> None:
    assert slots_to_run(CRONS, since=SINCE, now=NOW, policy="latest") == [utc(2026, 1, 1, 3)]
    assert slots_to_run(CRONS, since=SINCE, now=NOW + 2 * H, policy="latest") == [utc(2026, 1, 1, 5)]


def test_catch_up_skip_runs_the_newest_slot_only_while_it_is_on_time() -> None:
    assert slots_to_run(CRONS, since=SINCE, now=NOW, policy="skip") == [utc(2026, 1, 1, 3)]
    late = utc(2026, 1, 1, 3, 11)
    assert slots_to_run(CRONS, since=SINCE, now=late, policy="skip") == []
    assert slots_to_run(CRONS, since=SINCE, now=late, policy="skip", grace=timedelta(minutes=15)) == [
        utc(2026, 1, 1, 3)
    ]


def test_nothing_due_for_any_policy_when_no_slot_passed() -> None:
    for policy in ("all", "latest", "skip"):
        assert slots_to_run(CRONS, since=utc(2026, 1, 1, 1), now=utc(2026, 1, 1, 1, 59), policy=policy) == []


# --- input shapes and errors ---


class ModelLike:
    def __init__(self, cron: str, tz: str | None) -> None:
        self.cron, self.tz = cron, tz


def test_crons_from_every_frontmatter_shape() -> None:
    assert crons_from(None, "Europe/Berlin") == ()
    assert crons_from("0 9 * * 1", "Europe/Berlin") == (Cron("0 9 * * 1", "Europe/Berlin"),)
    assert crons_from({"cron": "0 9 * * 1", "tz": "Asia/Tokyo"}) == (Cron("0 9 * * 1", "Asia/Tokyo"),)
    assert crons_from([ModelLike("0 9 * * 1", None), "5 4 * * *"], "UTC") == (
        Cron("0 9 * * 1", "UTC"),
        Cron("5 4 * * *", "UTC"),
    )


def test_bad_cron_and_bad_zone_raise_schedule_errors() -> None:
    with pytest.raises(ScheduleError) as bad_cron:
        due_slots([Cron("0 25 * * *")], utc(2026, 1, 1), utc(2026, 1, 2))
    assert (
        bad_cron.value.message == "invalid cron expression '0 25 * * *': [0 25 * * *] is not acceptable, out of range"
    )
    with pytest.raises(ScheduleError) as bad_zone:
        Cron("0 1 * * *", "Mars/Olympus").validate()
    assert bad_zone.value.message == "unknown time zone 'Mars/Olympus'"
    with pytest.raises(ScheduleError):
        crons_from(42)


def test_naive_datetimes_are_refused() -> None:
    with pytest.raises(ValueError, match="naive datetime"):
        due_slots(CRONS, datetime(2026, 1, 1), utc(2026, 1, 2))


# --- property: agrees with a minute-by-minute reference near real transitions ---

TRANSITIONS = [
    ("America/New_York", utc(2026, 3, 8, 7)),
    ("America/New_York", utc(2026, 11, 1, 6)),
    ("Europe/Berlin", utc(2026, 3, 29, 1)),
    ("Europe/Berlin", utc(2026, 10, 25, 1)),
    ("Australia/Lord_Howe", utc(2026, 4, 4, 15)),
    ("Australia/Lord_Howe", utc(2026, 10, 3, 15, 30)),
    ("Asia/Kolkata", utc(2026, 6, 1, 0)),
]
MINUTES = ["0", "30", "15,45", "*/20", "5-10"]
HOURS = ["*", "1", "2", "1,2", "*/2", "0-23", "3", "1-3"]


def reference(cron: Cron, start: datetime, end: datetime) -> list[datetime]:
    """Walk every UTC minute and apply the documented DST rules literally."""
    zone, every_hour = ZoneInfo(cron.tz), cron.every_hour
    minute = timedelta(minutes=1)
    found: list[datetime] = []
    at = start.replace(second=0, microsecond=0) + minute
    while at <= end:
        local = at.astimezone(zone)
        wall = local.replace(tzinfo=None, fold=0)
        fires = croniter.match(cron.expr, wall) and (local.fold == 0 or every_hour)
        previous_wall = (at - minute).astimezone(zone).replace(tzinfo=None, fold=0)
        if not every_hour and wall - previous_wall > minute:  # a gap ends at `at`
            skipped = previous_wall + minute
            while skipped < wall and not fires:
                fires = croniter.match(cron.expr, skipped)
                skipped += minute
        if fires:
            found.append(at)
        at += minute
    return found


@settings(max_examples=40, deadline=None)
@given(
    where=st.sampled_from(TRANSITIONS),
    minute=st.sampled_from(MINUTES),
    hour=st.sampled_from(HOURS),
    lead=st.integers(min_value=0, max_value=300),
    length=st.integers(min_value=30, max_value=420),
)
def test_slots_match_a_minute_by_minute_reference(where: tuple[str, datetime], minute: str, hour: str, lead: int,
                                                  length: int) -> None:  # fmt: skip
    zone, transition = where
    cron = Cron(f"{minute} {hour} * * *", zone)
    start = transition - timedelta(minutes=lead)
    end = start + timedelta(minutes=length)
    slots = due_slots([cron], start, end)
    assert slots == reference(cron, start, end)
    assert latest_slot([cron], end, after=start) == (slots[-1] if slots else None)
    if slots:
        assert next_slot([cron], start) == slots[0]


# --- the default zone ---


def test_default_timezone_prefers_config_then_tz_then_localtime(tmp_path: Path) -> None:
    zoneinfo_dir = tmp_path / "usr" / "share" / "zoneinfo" / "Europe"
    zoneinfo_dir.mkdir(parents=True)
    (zoneinfo_dir / "Berlin").write_bytes(b"TZif")
    localtime = tmp_path / "localtime"
    localtime.symlink_to(zoneinfo_dir / "Berlin")
    assert default_timezone("Asia/Tokyo", {"TZ": "America/New_York"}, localtime) == "Asia/Tokyo"
    assert default_timezone(None, {"TZ": ":America/New_York"}, localtime) == "America/New_York"
    assert default_timezone(None, {"TZ": "EST5EDT,M3.2.0,M11.1.0"}, localtime) == "Europe/Berlin"
    assert default_timezone(None, {}, tmp_path / "missing") == "UTC"
    with pytest.raises(ScheduleError):
        default_timezone("Mars/Olympus", {}, localtime)
