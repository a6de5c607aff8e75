from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hz.turn import causes as c

AGENT = "hz-01JC0000000000000000000000"
SLOT = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)


def test_every_cause_has_its_key_shape() -> None:
    assert c.schedule_key(AGENT, SLOT) == f"{AGENT}@2026-10-30T15:00Z"
    assert c.source_changed_key(AGENT, "tracker", "sha256:ab") == f"{AGENT}@tracker:sha256:ab"
    assert c.discovered_key(AGENT, "sha256:cd") == f"{AGENT}@discovered:sha256:cd"
    assert c.asked_key(AGENT, "req-1") == f"{AGENT}@req-1"
    assert c.approval_key(AGENT, "k") == f"{AGENT}@approval:k"
    assert c.created_key(AGENT) == f"{AGENT}@created"
    assert c.retry_key(AGENT, "t-1", "req-2") == f"{AGENT}@retry:t-1:req-2"
    assert c.stale_key(AGENT, "report", SLOT) == f"{AGENT}@stale:report:2026-10-30T15:00Z"
    assert c.place_draft_key(AGENT, 1, "2026-10-30T15:00Z", "state:r.md") == f"{AGENT}@v1@2026-10-30T15:00Z@state:r.md"


def test_a_slot_in_another_zone_gives_the_same_key() -> None:
    berlin = SLOT.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin"))
    assert c.schedule_key(AGENT, berlin) == c.schedule_key(AGENT, SLOT)


def test_a_naive_slot_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        c.format_slot(datetime(2026, 1, 1))


def test_coalesce_files_the_turn_under_the_first_cause_in_spec_order() -> None:
    asked = c.Cause("asked", c.asked_key(AGENT, "r"), SLOT)
    moved = c.Cause("source-changed", c.source_changed_key(AGENT, "x", "sha256:1"), SLOT + timedelta(minutes=1))
    sched = c.Cause("schedule", c.schedule_key(AGENT, SLOT), SLOT + timedelta(minutes=2))
    wake = c.coalesce(AGENT, [asked, moved, sched, asked])
    assert wake.cause.kind == "schedule"
    assert [x.kind for x in wake.causes] == ["schedule", "source-changed", "asked"]
    assert wake.oldest_due == SLOT
    assert wake.keys == (sched.key, moved.key, asked.key)


def test_an_unknown_cause_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown cause 'whim'"):
        c.Cause("whim", "k", SLOT)


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)))
def test_slots_round_trip_to_the_minute(slot: datetime) -> None:
    minute = slot.replace(second=0, microsecond=0)
    assert c.parse_slot(c.format_slot(slot)) == minute
