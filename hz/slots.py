"""A schedule slot's one identity: the UTC minute it names, and the one string that spells it.

Leases, receipts, draft keys and the "already done?" look-up on `hz/state` all name a slot; a receipt
is found by the digest of its key, so two spellings of one minute are two different slots to a reader.
Everything that writes or looks for a slot goes through here:

    slot_text(moment)        `2026-10-30T15:00Z`  the one form: keys, draft keys, the done check
    slot_key(hz_id, moment)  `hz-…@2026-10-30T15:00Z`
    lease_stamp(moment)      `2026-10-30T15:00:00Z`  the same minute as a lease record's `slot` holds it
    parse_slot(text)         either spelling back to the instant; `same_slot` compares by it

A lease record keeps the seconds form (its field is a `UtcTime`, like its `acquired` and `expires`):
lease chains already on remotes hold it, and the hooks and hz versions other members run refuse a lease
field of any other shape. So the lease spells the slot differently, but always from the same minute,
and whatever compares a lease's slot with a key's compares instants (`parse_slot`), never strings.

A slot is a minute: cron fires on minutes, and a moment with seconds is cut to its minute here, so the
lease and the keys of one wake can never name two different instants.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

_MINUTE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}Z")
_SECOND = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?Z")


def slot_of(moment: datetime) -> datetime:
    """The slot a moment falls in: UTC, to the minute. A naive moment is refused, never guessed."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("a slot must be timezone-aware")
    return moment.astimezone(UTC).replace(second=0, microsecond=0)


def slot_text(moment: datetime) -> str:
    """The one string form of a slot: `2026-10-30T15:00Z`. Not strftime: its `%Y` writes year 1 as `1`."""
    return slot_of(moment).replace(tzinfo=None).isoformat(timespec="minutes") + "Z"


def slot_key(hz_id: str, moment: datetime) -> str:
    """The key of a slot's turn: `<id>@<slot>`, as the spine and `hz/state` file it."""
    return f"{hz_id}@{slot_text(moment)}"


def lease_stamp(moment: datetime) -> str:
    """The same slot as a lease record's `slot` field holds it: `2026-10-30T15:00:00Z`."""
    return slot_of(moment).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def parse_slot(text: str) -> datetime:
    """The instant a key's or a lease's spelling of a slot names; ValueError for anything else.

    Exact, not cut to the minute: a lease stamp with seconds past it (no hz writes one, the field
    allows it) names another instant than the minute's key, as the state lint sees it too.
    """
    if not (_MINUTE.fullmatch(text) or _SECOND.fullmatch(text)):
        raise ValueError(f"not a slot: {text[:40]!r}")
    return datetime.fromisoformat(text[:-1] + "+00:00").astimezone(UTC)


def same_slot(a: str, b: str) -> bool:
    """Do two spellings (a key's, a lease's) name the same slot? False when either is no slot."""
    try:
        return parse_slot(a) == parse_slot(b)
    except ValueError:
        return False
