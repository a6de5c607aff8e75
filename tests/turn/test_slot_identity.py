"""A slot has one identity: the lease's stamp, the receipts' keys, the draft key and the done check agree.

Slots come from the real scheduler (hz.schedule) for random crons in zones with DST, half-hour and
45-minute offsets; each slot goes through the real code that spells it: the spine key of a schedule
cause, the team receipts built from that turn (hz.tick.team_receipts), the lease record a claim writes, the key
the done check looks for (hz.gitstate.lease), the draft key, and the slot the state lint's fence reads.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.gitstate.lease import done_keys
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.lint_fence import event_slot
from hz.gitstate.types import format_utc
from hz.schedule import Cron, due_slots
from hz.session.envelope import Envelope
from hz.slots import lease_stamp, parse_slot, same_slot, slot_key, slot_text
from hz.tick.team_claim import Claim
from hz.tick.team_receipts import receipts
from hz.turn.causes import place_draft_key, schedule_key
from hz.turn.engine import turn_slot

AGENT = "hz-01KC1111111111111111111111"  # the member's own agent
LEASE = "hz-01KC0000000000000000000000"  # the contract's team-wide id, its lease
TURN = "01KC2222222222222222222222"
ZONES = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "America/St_Johns",  # -03:30, with DST
    "Asia/Kolkata",  # +05:30
    "Asia/Kathmandu",  # +05:45
    "Australia/Lord_Howe",  # DST moves the clock by 30 minutes
    "Pacific/Chatham",  # +12:45 / +13:45
]
MINUTES = ["0", "30", "15,45", "*/20", "5-10", "59"]
HOURS = ["*", "1", "2", "1,2", "*/2", "0-23", "3", "9-17"]
DAYS = ["*", "1-5", "0", "5", "6,0"]


def _transitions(year: int) -> list[datetime]:
    """The hours of `year` at which one of ZONES changes its offset (DST starts or ends)."""
    hours = [datetime(year, 1, 1, tzinfo=UTC) + timedelta(hours=h) for h in range(366 * 24)]
    found = []
    for name in ZONES:
        zone = ZoneInfo(name)
        found += [
            b for a, b in itertools.pairwise(hours) if a.astimezone(zone).utcoffset() != b.astimezone(zone).utcoffset()
        ]
    return sorted(found)


NEAR_DST = st.tuples(st.sampled_from(_transitions(2026)), st.integers(min_value=-3 * 24 * 60, max_value=60)).map(
    lambda pair: pair[0] + timedelta(minutes=pair[1])
)
ANY_TIME = st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2028, 12, 31), timezones=st.just(UTC))


def _turn(key: str, slot: datetime) -> list[Envelope]:
    """The spine lines of one finished schedule turn for `key`, as the engine writes them."""
    ts = format_utc(slot + timedelta(seconds=7))
    started = {"cause": "schedule", "causes": ["schedule"], "keys": [key], "contract_version": 1}
    finished = {"disposition": "drafted", "cause": "schedule", "causes": ["schedule"], "usd": 0.0}
    return [
        Envelope(1, ts, None, "turn.started", started, TURN, key),
        Envelope(2, ts, "sha256:" + "0" * 64, "turn.finished", finished, TURN, key),
    ]


def _lease(stamp: str, slot: datetime) -> LeaseRecord:
    acquired = format_utc(slot)
    expires = format_utc(slot + timedelta(minutes=5))
    return LeaseRecord(lease=LEASE, holder="@priya/m-0123abcd", role="owner", token=3, slot=stamp,
                       acquired=acquired, expires=expires)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    zone=st.sampled_from(ZONES),
    minute=st.sampled_from(MINUTES),
    hour=st.sampled_from(HOURS),
    day=st.sampled_from(DAYS),
    start=st.one_of(NEAR_DST, ANY_TIME),
)
def test_a_slots_lease_stamp_and_receipt_keys_always_agree(
    zone: str, minute: str, hour: str, day: str, start: datetime
) -> None:
    slots = due_slots([Cron(f"{minute} {hour} * * {day}", zone)], start, start + timedelta(days=8), limit=12)
    for slot in slots:
        record = _lease(lease_stamp(slot), slot)  # what a claim for this slot writes (validated as the hook does)
        local = schedule_key(AGENT, slot)  # the spine's key of the schedule cause
        events = receipts(_turn(local, slot), TURN, Claim(True, LEASE, 3, "won", "owner", "@priya"))
        canonical = slot_key(LEASE, slot)
        assert [e.key for e in events] == [canonical, canonical]  # turn.started and turn.finished
        assert done_keys(LEASE, record.slot)[0] == canonical  # the done check finds them
        assert all(event_slot(e) == parse_slot(record.slot) == slot for e in events)  # the fence's instant
        assert same_slot(record.slot, canonical.split("@", 1)[1])
        draft = place_draft_key(AGENT, 1, slot_text(slot), "state:notes/x.md")
        assert draft.split("@")[2] == canonical.split("@", 1)[1]
        assert turn_slot(_turn(local, slot)[0]) == slot  # a resumed turn drafts under the same slot


@settings(max_examples=100, deadline=None)
@given(moment=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)))
def test_the_lease_field_keeps_the_form_existing_chains_hold(moment: datetime) -> None:
    """Lease chains already on remotes spell the slot to the second; a renewal must keep the same string
    (HZS014 compares it), and readers of other hz versions accept nothing else in a `UtcTime` field."""
    slot = moment.replace(second=0, microsecond=0)
    old = slot.strftime("%Y-%m-%dT%H:%M:%SZ") if slot.year >= 1000 else format_utc(slot)
    assert lease_stamp(slot) == old
    assert parse_slot(old) == parse_slot(slot_text(slot)) == slot
    assert done_keys(LEASE, old)[0] == f"{LEASE}@{slot_text(slot)}"


def test_one_minute_has_one_spelling_and_other_text_is_no_slot() -> None:
    berlin_fall = datetime(2026, 10, 25, 0, 30, 59, 999, tzinfo=UTC)  # 02:30 CEST, the first of two
    assert slot_text(berlin_fall) == "2026-10-25T00:30Z"
    assert lease_stamp(berlin_fall) == "2026-10-25T00:30:00Z"
    assert same_slot("2026-10-25T00:30Z", "2026-10-25T00:30:00Z")
    assert not same_slot("2026-10-25T00:30Z", "2026-10-25T01:30:00Z")
    assert not same_slot("2026-10-25T00:30Z", "2026-10-25 00:30Z")
    assert done_keys(LEASE, "created") == ()
    with pytest.raises(ValueError, match="a slot must be timezone-aware"):
        slot_text(datetime(2026, 10, 25, 0, 30))
    with pytest.raises(ValueError, match=r"not a slot: '2026-10-25T00:30\+00:00'"):
        parse_slot("2026-10-25T00:30+00:00")
