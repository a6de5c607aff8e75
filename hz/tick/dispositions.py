"""Why a team contract did or did not run: one typed disposition per contract a tick looked at.

A tick decides for each team contract it looks at whether this machine runs its slot; when it does not,
the reason is one of a few, each with the facts a person needs to act on it: who holds the lease and
until when, when the grace period of a delegate or an Actions run ends, which upstream contract has
nothing approved yet, which cap stopped it, that the contract gives this member no role, that the slot
is done already. `hz tick --json` lists these (`team`), its text output says each in one line, and the
"why" of the operations layer asks `look` the same question without running anything.

`look` decides exactly as a tick's claim does (hz.tick.team_claim.decide, which asks hz.gitstate.lease.plan),
without pushing: what it says is what the next tick of this machine would meet, as of the last fetch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from hz.tick.team import Team
    from hz.tick.team_claim import Claim
    from hz.turn.plan import Plan

State = Literal[
    "ran",  # this machine ran the slot (the turn's own disposition is in `reason`)
    "due",  # nothing stands in the way: the next tick of this machine runs it (`look` only)
    "held",  # another holder has the lease: `holder`, `until`
    "early",  # a delegate or an Actions run waits for the owner's grace period: `until`
    "waiting",  # an upstream contract has nothing approved yet: `upstream`
    "capped",  # a spending cap would be crossed
    "not-a-role",  # the contract on main gives this member no role
    "done",  # the slot's end is on hz/state already (here or elsewhere)
    "not-on-main",  # the contract was removed from main
    "nothing-moved",  # an if-moved schedule slot whose inputs did not move
    "not-due",  # looked at for its drafts or inputs; no slot is due
    "unreached",  # the team remote could not be fetched: team slots wait
]


@dataclass(frozen=True)
class Disposition:
    """What became of one team contract in one tick (or would, for `look`)."""

    contract: str  # the contract's name
    lease: str | None  # `hz-<contract id>`, its lease and the id of its receipts
    state: State
    reason: str  # one line, for a person
    slot: str | None = None  # the slot it was about (a lease stamp, UTC)
    holder: str | None = None  # for `held`: who holds the lease
    until: str | None = None  # when this changes: the lease's expiry, the grace period's end
    upstream: str | None = None  # for `waiting`: the contract whose approval it waits for

    def to_json(self) -> dict[str, Any]:
        return {
            "contract": self.contract,
            "lease": self.lease,
            "state": self.state,
            "reason": self.reason,
            "slot": self.slot,
            "holder": self.holder,
            "until": self.until,
            "upstream": self.upstream,
        }

    def line(self) -> str:
        """The one line `hz tick` prints for it."""
        return f"{self.contract}: {self.state}: {self.reason}"


def _stamp(moment: datetime | None) -> str | None:
    from hz.gitstate.types import format_utc

    return None if moment is None else format_utc(moment)


def from_claim(contract: str, claim: Claim, slot: datetime) -> Disposition:
    """The disposition a claim that was not won stands for (a won one is `ran`, said after the turn)."""
    from hz.slots import lease_stamp
    from hz.tick.team_claim import NOT_ON_MAIN, RAN_ELSEWHERE

    stamp, lease = lease_stamp(slot), claim.lease
    if claim.why == RAN_ELSEWHERE:
        return Disposition(contract, lease, "done", f"slot {stamp} is done: its end is on hz/state", stamp)
    if claim.why == NOT_ON_MAIN:
        return Disposition(contract, lease, "not-on-main", "the contract was removed from main", stamp)
    if claim.why == "not a member of it":
        return Disposition(contract, lease, "not-a-role", "the contract on main gives you no role in it", stamp)
    if claim.why == "early":
        reason = f"waiting for the grace period: the owner goes first until {claim.until or '?'} ({claim.role})"
        return Disposition(contract, lease, "early", reason, stamp, until=claim.until)
    if claim.holder_now is not None:
        reason = f"held by {claim.holder_now} until {claim.until or '?'} (slot {claim.held_slot or '?'})"
        return Disposition(contract, lease, "held", reason, stamp, holder=claim.holder_now, until=claim.until)
    return Disposition(contract, lease, "held", claim.why, stamp)


def ran(contract: str, lease: str | None, slot: datetime | None, outcome: str) -> Disposition:
    return Disposition(contract, lease, "ran", f"ran here: {outcome}", _lease_stamp(slot))


def capped(contract: str, lease: str | None, cap: str) -> Disposition:
    return Disposition(contract, lease, "capped", f"capped: {cap}")


def waiting(contract: str, lease: str | None, upstream: str, said: str, slot: datetime | None) -> Disposition:
    """`said`: the gather's own words (hz.sources.contract), which name the path it waits for."""
    return Disposition(contract, lease, "waiting", said, _lease_stamp(slot), upstream=upstream)


def nothing_moved(contract: str, lease: str | None) -> Disposition:
    return Disposition(contract, lease, "nothing-moved", "its inputs did not move since its last turn")


def not_due(contract: str, lease: str | None, next_due: str | None) -> Disposition:
    said = f"nothing due; next slot {next_due}" if next_due else "nothing due"
    return Disposition(contract, lease, "not-due", said)


def unreached(contract: str, lease: str | None) -> Disposition:
    return Disposition(contract, lease, "unreached", "the team remote was not reached: its slots wait")


def _lease_stamp(slot: datetime | None) -> str | None:
    from hz.slots import lease_stamp

    return None if slot is None else lease_stamp(slot)


def look(team: Team, plan: Plan, slot: datetime, now: datetime) -> Disposition:
    """What this machine's next tick would meet for `plan`'s `slot`, decided as a claim is, pushing nothing."""
    from hz.tick.team import lease_id
    from hz.tick.team_claim import decide

    name = str(plan.name)
    decided = decide(team, plan, slot, now)
    if decided.won:  # free to take: nothing stands in the way
        return Disposition(name, lease_id(plan), "due", "free: the next tick runs it", _lease_stamp(slot))
    return from_claim(name, decided, slot)
