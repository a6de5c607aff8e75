"""Leases: compare-and-swap on `refs/hz/lease/<id>`, with fencing tokens.

For the turn engine:

    team = TeamRemote(root, settings.remote)
    outcome = acquire(team, lease_id, slot=..., identity=whoami(environ, handle), role="owner",
                      now=now, settings=settings, due=slot_due)
    if outcome.won: ... outcome.record.token is the fencing token turn.started records ...

`acquire` looks first, with one fetch of the lease ref (the advertisement an ls-remote reads, plus
the record's objects when they are new here, in one connection), and pushes only when the lease is
free (absent, released, or expired beyond the clock-skew margin) or already ours. Its push adds one commit
whose parent is the tip it saw and carries no force, so of several racing writers the remote lets exactly
one fast-forward; creating a lease is just as exclusive (`--force-with-lease=<ref>:` demands absence).
Renewals normally ride along with the events in `StateWriter.flush`; `renew` and `release` push one
alone. A lease ref is never deleted or rewound, so the token never resets. A term whose turn ran needs no
release commit: its `turn.finished` on `hz/state` ends it (hz.gitstate.lease_term), and every look here
reads the lease's record and `hz/state` together.

A holder is a member on one machine (`@priya/m-1a2b3c4d`, see hz.gitstate.identity), so the same
person's second machine finds the lease held like anyone else's. What the remote holds is read through
the lease lint (hz.gitstate.lease_lint): a ref hz could not have written raises DamagedLease (exit 1,
with the way out) instead of passing for a lease or crashing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from hz.errors import HzError
from hz.gitstate import objects
from hz.gitstate.events import Role
from hz.gitstate.identity import Identity
from hz.gitstate.layout import LEASE_FILE, STATE_REF, event_path, lease_ref
from hz.gitstate.lease_lint import HINT_DAMAGED, MAX_TTL, DamagedLease, read_tip
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.lease_term import Reader, over, reader
from hz.gitstate.lease_term import done_keys as done_keys  # where its callers have always found it
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.transport import ZERO
from hz.gitstate.types import TOKEN_MAX, format_utc
from hz.slots import same_slot

Status = Literal["won", "held", "early", "done"]
_ENDS = ("turn.finished", "turn.skipped")


class NotHolder(HzError):
    """A renewal or release of a lease this member does not hold (any more)."""


@dataclass(frozen=True)
class LeaseView:
    """A lease as the remote has it now: its tip commit and record (both None: never created)."""

    tip: str | None
    record: LeaseRecord | None


@dataclass(frozen=True)
class Outcome:
    status: Status
    record: LeaseRecord | None
    tip: str | None
    not_before: datetime | None = None  # for "early": when a delegate or Actions run may try

    @property
    def won(self) -> bool:
        return self.status == "won"


def read_lease(team: TeamRemote, lease_id: str) -> LeaseView:
    """The lease as the remote has it now (one fetch); DamagedLease when its tip is nothing hz wrote."""
    tip = remote_tip(team, lease_ref(lease_id))
    return LeaseView(tip, record_at(team, lease_id, tip))


def _look(team: TeamRemote, lease_id: str) -> LeaseView:
    """The lease as the tick's one fetch saw it (with the receipts `plan` read there), else one
    fetch. A stale look is safe: the push that takes the lease expects that very tip."""
    known, tip = team.looked(lease_ref(lease_id))
    return LeaseView(tip, record_at(team, lease_id, tip)) if known else read_lease(team, lease_id)


def remote_tip(team: TeamRemote, ref: str) -> str | None:
    """Fetch one lease ref and return the object it names itself: a tag is not peeled to its commit,
    so a tag pushed as a lease reads as damaged instead of passing for the commit inside it."""
    if team.fetch_tip(ref) is None:
        return None
    return str(team.repo.references[team.tracking(ref)].target)


def record_at(team: TeamRemote, lease_id: str, tip: str | None) -> LeaseRecord | None:
    """The record at `tip` of lease `lease_id` (None: no tip), checked as the hook checks a commit."""
    if tip is None:
        return None
    return read_tip(team.repo, lease_ref(lease_id), tip)


@dataclass(frozen=True)
class Claim:
    """A wish to take `lease_id` for `slot` as `holder` in `role`; `StateWriter.flush` carries these."""

    lease_id: str
    slot: str
    holder: str
    role: Role
    due: datetime | None = None
    ttl: timedelta | None = None
    keys: tuple[str, ...] = ()  # the keys (`<lease>@…`) the wake's receipts go under, when not the slot's


@dataclass(frozen=True)
class Plan:
    """The lease commit to push for a claim: its record, on top of the tip that was seen (None: create)."""

    parent: str | None
    record: LeaseRecord


def acquire(
    team: TeamRemote,
    lease_id: str,
    *,
    slot: str,
    identity: Identity,
    role: Role,
    now: datetime,
    settings: StateSettings,
    due: datetime | None = None,
    ttl: timedelta | None = None,
) -> Outcome:
    """Take the lease for `slot` with a push of its own, or learn who holds it (see `plan`)."""
    step = plan(team, Claim(lease_id, slot, identity.holder, role, due, ttl), now, settings)
    if isinstance(step, Outcome):
        return step
    return push_plan(team, step, now)


def grace_ends(role: str, due: datetime | None, now: datetime, settings: StateSettings) -> datetime | None:
    """When a claim of a slot due at `due` may look at its lease: the owner at once (None), a delegate or an
    Actions run once the grace period past `due` is over (None once it is; a wake a person asked for has no
    `due` and waits for nothing)."""
    if role != "owner" and due is not None and now < due + settings.grace:
        return due + settings.grace
    return None


def plan(team: TeamRemote, claim: Claim, now: datetime, settings: StateSettings) -> Plan | Outcome:
    """Look (one fetch of hz/state, one of the lease ref) and decide; owner first: a delegate or an
    Actions run waits `settings.grace` past `due`. No role takes a slot whose end is on hz/state already:
    a runner arriving after the holder's lease expired would otherwise run the slot a second time. Nor a
    wake whose own key (`claim.keys`: a `source-changed` wake's names the input and its fingerprint, the
    same on every member) ended there: the minute of the tick is its slot, another on every member."""
    if (claim.role == "actions") != claim.holder.startswith("actions:"):
        raise HzError(
            f"{claim.holder} cannot hold a lease as {claim.role}", hint="the role actions is an Actions run's"
        )
    if (not_before := grace_ends(claim.role, claim.due, now, settings)) is not None:
        return Outcome("early", None, None, not_before)
    state = team.current(STATE_REF)  # read once: the receipts and the lease from the tick's one fetch
    read = reader(team.repo, state)
    done = _ended_at(read, claim.lease_id, done_keys(claim.lease_id, claim.slot) + claim.keys)
    view = _look(team, claim.lease_id)
    current = view.record
    if done:
        return Outcome("done", current, view.tip)
    taken = current is not None and current.holder != claim.holder
    if taken and current is not None and not current.is_free(now, settings.skew, ended=over(read, current)):
        return Outcome("held", current, view.tip)
    ttl = _bounded(claim.ttl or settings.ttl)
    token = _next_token(current, claim)
    record = LeaseRecord(
        lease=claim.lease_id,
        holder=claim.holder,
        role=claim.role,
        token=token,
        slot=claim.slot,
        acquired=format_utc(now),
        expires=format_utc(now + ttl),
    )
    return Plan(view.tip, record)


def _next_token(current: LeaseRecord | None, claim: Claim) -> int:
    """Taking what we already hold (same holder and slot, still held) is a renewal: the same token.
    Anything else is an acquisition: one more."""
    if current is None:
        return 1
    if (current.holder, current.state) == (claim.holder, "held") and same_slot(current.slot, claim.slot):
        return current.token
    if current.token == TOKEN_MAX:  # only on a remote without the hook: a chain starts at 1
        ref = lease_ref(claim.lease_id)
        raise DamagedLease(
            f"lease ref {ref} is damaged: token {current.token} leaves no room", hint=HINT_DAMAGED.format(ref=ref)
        )
    return current.token + 1


def _bounded(ttl: timedelta) -> timedelta:
    """A lease held longer than the hook's ceiling would be refused by the remote: say so before."""
    if ttl > MAX_TTL:
        raise HzError(
            f"a lease may be held {MAX_TTL.total_seconds():.0f} s at most, not {ttl.total_seconds():.0f} s",
            hint="lower [state] lease_ttl_s in hz.toml (or --ttl); a turn renews its lease as it goes",
        )
    return ttl


def push_plan(team: TeamRemote, step: Plan, now: datetime) -> Outcome:
    """Push the lease commit `plan` decided on, without force: won, or held by whoever won the race."""
    record = step.record
    commit = lease_commit(team, step.parent, record, now)
    ref = lease_ref(record.lease)
    result = team.git.push(team.remote, {ref: commit}, {ref: step.parent or ZERO})
    if result.ok:
        remember(team, record, commit)
        return Outcome("won", record, commit)
    if result.hook_declined:
        raise HzError(f"the remote refused lease {record.lease}: {result.stderr.strip()}")
    tip = remote_tip(team, ref)  # it moved: one fetch tells who won
    return Outcome("held", record_at(team, record.lease, tip), tip)


def lease_commit(team: TeamRemote, parent: str | None, record: LeaseRecord, now: datetime) -> str:
    tree = objects.write_tree(team.repo, None, {LEASE_FILE: record.line()})
    message = f"lease {record.lease} token {record.token} {record.state}\n"
    return objects.make_commit(team.repo, tree, [parent] if parent else [], message, now)


def _ended_at(read: Reader, lease_id: str, keys: tuple[str, ...]) -> bool:
    """Is a turn of lease `lease_id` filed under one of `keys` (`<lease>@…`) ended (turn.finished or
    turn.skipped) on `hz/state` as `read` has it? The slot's keys (`done_keys`: receipts are filed under the
    digest of their key, so the key is made by the one function that made theirs, hz.slots, in either
    spelling the lint allows), and a wake's own key when it names its occasion rather than a slot (a
    `source-changed` wake: the moved input and its fingerprint). A slot that names no time has no keys."""
    return any(read(event_path(lease_id, kind, key)) is not None for kind in _ENDS for key in keys)


# --- what this machine holds ---------------------------------------------------------------------


@dataclass(frozen=True)
class Held:
    """A lease this machine won: the tip it last pushed and the record there."""

    tip: str
    record: LeaseRecord


def mine(team: TeamRemote, lease_id: str, now: datetime, settings: StateSettings) -> Held | None:
    """The lease this machine holds and may still act under (before `expires - clock_skew_s`), or None.

    No network: a turn checks this before each step; the fenced push stays the final word. The note is
    forgotten by the push that ends its term, so a term noted here is not over as far as this machine knows.
    """
    current = held(team, lease_id)
    if current is None or not current.record.valid_for_holder(now, settings.skew, ended=False):
        return None
    return current


def holding(team: TeamRemote, lease_id: str, token: int) -> Held | None:
    """The lease we hold with this token, from memory or, when that is gone, from the remote.

    A token names one acquisition, so a remote lease still held under our token is still ours: its
    tip becomes the expected value of the next fenced push. Anything else means we were replaced, or the
    term is over (its turn's end is on hz/state: read after the lease, so at least as new).
    """
    mine = held(team, lease_id)
    if mine is not None:
        return mine if mine.record.token == token else None
    view = read_lease(team, lease_id)
    if view.tip is None or view.record is None or view.record.token != token:
        return None
    if over(reader(team.repo, team.current(STATE_REF)), view.record):  # released, or its turn finished
        return None
    remember(team, view.record, view.tip)
    return Held(view.tip, view.record)


def remember(team: TeamRemote, record: LeaseRecord, tip: str) -> None:
    """Note the tip we pushed. Atomic but not fsynced, on purpose: a note lost in a crash is rebuilt
    from the remote by token (`holding`, and the writer's check after a refusal), so durability would
    only cost every acquire an fsync."""
    import os
    import tempfile

    from hz.fsio import private_dir

    folder = private_dir(team.local_dir / "leases")
    fd, tmp = tempfile.mkstemp(prefix=f".{record.lease}.", suffix=".tmp", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:  # mkstemp creates it 0600
        handle.write(f'{{"tip": "{tip}", "record": {record.line().decode().strip()}}}\n')
    os.replace(tmp, folder / f"{record.lease}.json")


def forget(team: TeamRemote, lease_id: str) -> None:
    (team.local_dir / "leases" / f"{lease_id}.json").unlink(missing_ok=True)


def held(team: TeamRemote, lease_id: str) -> Held | None:
    import json

    from pydantic import ValidationError

    path = team.local_dir / "leases" / f"{lease_id}.json"
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Held(str(raw["tip"]), LeaseRecord.model_validate(raw["record"]))
    except (ValueError, KeyError, TypeError, ValidationError, RecursionError):
        return None  # a damaged note: held by nobody here; `holding` recovers a lease of ours by token


def renewal(
    team: TeamRemote, mine: Held, now: datetime, ttl: timedelta, *, release: bool = False
) -> tuple[str, LeaseRecord]:
    """The commit that extends (or releases) a held lease: parent is the tip we pushed, same token.

    `acquired` moves to `now` as well: a record says when its hold began, so `expires - acquired`
    stays within the hook's MAX_TTL however long a holder keeps renewing."""
    changes: dict[str, object] = {
        "acquired": format_utc(now),
        "expires": format_utc(now + _bounded(ttl)),
        "state": "held",
    }
    if release:
        changes = {"acquired": format_utc(now), "expires": format_utc(now), "state": "released"}
    record = mine.record.model_copy(update=changes)
    return lease_commit(team, mine.tip, record, now), record


def renew(
    team: TeamRemote, lease_id: str, now: datetime, settings: StateSettings, *, release: bool = False
) -> LeaseRecord:
    """Push a renewal (or release) alone; raises NotHolder when the lease moved on without us."""
    mine = held(team, lease_id)
    if mine is None:
        raise NotHolder(f"this machine holds no lease {lease_id}", hint="acquire it first: hz lease acquire")
    commit, record = renewal(team, mine, now, settings.ttl, release=release)
    ref = lease_ref(lease_id)
    result = team.git.push(team.remote, {ref: commit}, {ref: mine.tip})
    if not result.ok:
        forget(team, lease_id)
        now_there = read_lease(team, lease_id).record
        holder = f"{now_there.holder} (token {now_there.token})" if now_there else "nobody"
        raise NotHolder(f"lease {lease_id} moved on: held by {holder}", hint="this machine was fenced")
    if release:
        forget(team, lease_id)
    else:
        remember(team, record, commit)
    return record
