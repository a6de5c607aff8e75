"""Fencing tokens against the lease chain: an event carries only a token its lease actually gave.

Every acquisition of `refs/hz/lease/<id>` is a commit whose `lease.json` names the token and the slot
it was taken for. An event on `hz/state` names its lease and token; the token must be one some commit
of that chain holds, and an event keyed by a slot (`<id>@2026-10-30T15:00Z`, the turn events) must
match a commit with that token *and* that slot. So a member cannot write a token far above the lease's
(which would void every later real event for a reader that fences by the highest token seen) nor
pre-write `turn.finished` for a slot nobody has taken.

Chains are read from the tip back, lazily: tokens only grow along a chain (the lease lint sees to
that), so the walk stops at the first record below the token asked about, and a push of events under
the current token reads one commit or two.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hz.gitstate.layout import LEASE_FILE, LEASE_PREFIX
from hz.gitstate.odb import objects_of
from hz.gitstate.shapes import SLOT, slot_time

if TYPE_CHECKING:
    from hz.gitstate.event_shapes import EventView as Event
    from hz.gitstate.odb import Objects, Repo

SLOT_SUFFIX = re.compile(SLOT)
MAX_RECORDS = 4096
"""How far back from its tip a lease chain is read, at most: about two weeks of renewals every five
minutes. A holder that keeps its lease keeps its token, so one token's run can grow without end (10,000
commits after a month): without a horizon every push of an event under it would read the whole run.
What lies beyond is not held against an event where the chain cannot tell (a member's lint of old
history, the readers); the hook, which judges new events, refuses a token or slot it does not find
within the horizon."""
SLOT_KINDS = frozenset({"turn.started", "turn.finished", "turn.skipped"})
SYNC_PREFIX = "refs/hz/sync/"


class Grants:
    """What one lease chain gave: for each token, the slots it was taken for."""

    def __init__(self, repo: Repo, tip: str, *, current: bool) -> None:
        self.current = current  # the ref itself, not a fetched copy that may lag behind it
        self._records = _records(objects_of(repo), tip, self)
        self.cut = False  # the walk stopped at MAX_RECORDS: tokens and slots past it are unknown here
        self._slots: dict[int, set[datetime]] = {}
        self._who: dict[int, tuple[str, str]] = {}  # token -> (holder, role) of the commit that gave it
        self._taken: dict[int, str] = {}  # token -> `acquired` of the commit that gave it (a renewal moves it)
        self._lowest: int | None = None
        self._newest: int | None = None

    def slots(self, token: int) -> set[datetime]:
        """The slots `token` was given for; empty when the chain never gave it."""
        while self._lowest is None or self._lowest >= token:
            record = next(self._records, None)
            if record is None:
                break
            if self._newest is None:
                self._newest = record.token
            self._slots.setdefault(record.token, set()).add(_slot_time(record.slot))
            self._who[record.token] = (record.holder, record.role)  # read tip first: the last is the taking
            self._taken[record.token] = record.acquired
            self._lowest = record.token if self._lowest is None else min(self._lowest, record.token)
        return self._slots.get(token, set())

    def holder(self, token: int) -> tuple[str, str] | None:
        """Who took the lease under `token`, and in which role; None when the chain never gave it."""
        self.slots(token)
        return self._who.get(token)

    def taken(self, token: int) -> datetime | None:
        """When `token` was taken, by the clock of the member who took it; None when the chain never gave it."""
        self.slots(token)
        found = self._taken.get(token)
        return _slot_time(found) if found is not None else None

    def newest(self) -> int | None:
        """The token at the tip of the chain (None: the tip is no lease record)."""
        self.slots(2**63)  # reads the tip record (no token is that high), if it was not read yet
        return self._newest


def _records(objects: Objects, tip: str, grants: Grants) -> Iterator[Any]:
    """Lease records from `tip` back along first parents, MAX_RECORDS at most (then `grants.cut` is set);
    an unreadable commit ends the chain here. A parent this repository lacks (a clone that fetched the chain
    from a date on, as the state-lint workflow does) sets `grants.cut` too: what came before is unknown here,
    not absent."""
    commit = objects.commit(tip)
    for _ in range(MAX_RECORDS):
        if commit is None:
            return
        data = objects.blob_at(commit.tree, LEASE_FILE)
        record = _record(data) if data is not None else None
        if record is None:
            return  # not a lease record: the lease lint refuses it; no token past it is trusted
        yield record
        if not commit.parents:
            return
        parent = objects.commit(commit.parents[0])
        if parent is None:
            grants.cut = True
            return
        commit = parent
    grants.cut = True


def _record(data: bytes) -> Any:
    """The record in a lease commit: hz's own form read without the model; any other form (a record written
    to a remote without the hook) is read by the model as it always was, so it counts the same."""
    from hz.gitstate.lease_shapes import plain_lease

    if (plain := plain_lease(data)) is not None:
        return plain
    from pydantic import ValidationError

    from hz.gitstate.lease_record import LeaseRecord

    try:
        return LeaseRecord.from_bytes(data)
    except (ValueError, ValidationError):
        return None


def _slot_time(text: str) -> datetime:
    from hz.gitstate.times import parse_utc

    return parse_utc(text)


class LeaseBook:
    """The lease chains a lint may consult, by lease id.

    `tip_of` says where each chain ends and whether that is the ref itself (current) or a copy fetched
    some time ago; None: no chain here. `required`: no chain means no token was given (the hook).
    """

    def __init__(self, repo: Repo, tip_of: Callable[[str], tuple[str, bool] | None], *, required: bool) -> None:
        self._objects = objects_of(repo)
        self._tip_of = tip_of
        self.required = required
        self._grants: dict[str, Grants | None] = {}

    def grants(self, lease_id: str) -> Grants | None:
        if lease_id not in self._grants:
            found = self._tip_of(lease_id)
            self._grants[lease_id] = Grants(self._objects, found[0], current=found[1]) if found is not None else None
        return self._grants[lease_id]

    @classmethod
    def for_push(cls, repo: Repo, pushed: Mapping[str, str]) -> LeaseBook:
        """The hook's view: a lease ref updated in the same push counts at its new tip."""
        objects = objects_of(repo)

        def tip_of(lease_id: str) -> tuple[str, bool] | None:
            ref = LEASE_PREFIX + lease_id
            tip = pushed[ref] if ref in pushed else objects.resolve(ref)
            return (tip, True) if tip is not None else None

        return cls(objects, tip_of, required=True)

    @classmethod
    def local(cls, repo: Repo) -> LeaseBook:
        """A repository's own lease ref (current: the server, a mirror), else the copy hz fetched into a
        member's clone (`refs/hz/sync/<remote>/hz/lease/…`, which may lag behind the remote)."""
        objects = objects_of(repo)

        def tip_of(lease_id: str) -> tuple[str, bool] | None:
            direct = objects.resolve(LEASE_PREFIX + lease_id)
            if direct is not None:
                return direct, True
            suffix = "/" + LEASE_PREFIX.removeprefix("refs/") + lease_id
            copies = objects.refs(SYNC_PREFIX)
            names = sorted(n for n in copies if n.endswith(suffix))
            return (copies[names[0]], False) if names else None

        return cls(objects, tip_of, required=False)


def _resolve(repo: Repo, ref: str) -> str | None:
    """The id `ref` points at in `repo` (a reader or a pygit2 repository), None without one."""
    return objects_of(repo).resolve(ref)


def fence_problem(book: LeaseBook, event: Event) -> str | None:
    """Why `event`'s (lease, token) is not one its lease chain gave, or None when it is."""
    if event.lease != event.id:
        return f"written under lease {event.lease}, not its own lease {event.id}"
    grants = book.grants(event.lease)
    if grants is None:
        return f"lease {event.lease} does not exist, so no token was given" if book.required else None
    slots = grants.slots(event.token)
    if not slots and beyond(grants, event.token):
        return None  # a fetched copy of the chain may be older than the event: it cannot tell
    if grants.cut and not book.required:
        return None  # an old event, its token or slot past the horizon of the chain: nothing to tell
    if not slots and grants.cut:
        return f"token {event.token} is not among the last {MAX_RECORDS} commits of lease {event.lease}"
    if not slots:
        return f"token {event.token} was never given by lease {event.lease}"
    slot = event_slot(event)
    if slot is None and event.kind in SLOT_KINDS and SLOT_SUFFIX.fullmatch(event.key.split("@", 1)[1]):
        return f"key {event.key} names no real time"
    if slot is not None and slot not in slots:
        return f"token {event.token} of lease {event.lease} was not given for slot {event.key.split('@', 1)[1]}"
    return None


def beyond(grants: Grants, token: int) -> bool:
    """Is `token` above what a lagging copy of the chain knows (so neither given nor forged, as far as it can tell)?"""
    newest = grants.newest()
    return not grants.current and newest is not None and token > newest


def event_slot(event: Event) -> datetime | None:
    """The slot a turn event is keyed by (`<id>@<slot>`), or None for other keys and kinds."""
    suffix = event.key.split("@", 1)[1]
    if event.kind not in SLOT_KINDS or not SLOT_SUFFIX.fullmatch(suffix):
        return None
    return slot_time(suffix)
