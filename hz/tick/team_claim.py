"""A team contract's claim in a tick: whether this machine may take the slot's lease (`decide`), and taking
it (`claim`), with why not when it may not (held, early, ran elsewhere, not a member, not on main).

The lease itself is hz.gitstate.lease's; this reads the remote's main (owners, maintainers, retired ids)
as the tick's one fetch saw it (hz.tick.team.Team).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hz.tick.team import lease_id
from hz.turn.plan import Plan

if TYPE_CHECKING:
    from hz.tick.team import Team

RAN_ELSEWHERE = "ran-elsewhere"
"""Why a claim was not won when the slot's end is on `hz/state` already; the local skip's reason too."""

NOT_ON_MAIN = "not on main"
"""Why a claim was not tried: the contract with this id was on the remote's main and was removed."""


@dataclass(frozen=True)
class Claim:
    won: bool
    lease: str | None
    token: int
    why: str  # won | held by … | early | ran-elsewhere | not a member of it | not on main | no contract id
    role: str = "owner"
    handle: str | None = None  # who runs it, the approver of record when a draft's approval has none
    pending: bool = False  # lost for now, settled nowhere: the wake stays due and the next tick claims again
    holder_now: str | None = None  # held: who holds the lease now
    until: str | None = None  # held: when that hold expires; early: when the grace period ends
    held_slot: str | None = None  # held: the slot the holder holds it for


def role_of(team: Team, plan: Plan, lease: str) -> Any:
    """This machine's role for the contract: by its owner and maintainers on the remote's main (what the
    hook checks; a change there counts before this machine adopts the new version), else by its version."""
    if team.main is False:
        team.main = _main_contracts(team)
    declared = team.main.declared.get(lease) if team.main is not None else None
    if declared is not None:
        return team.identity.role_for(declared.owner or "", tuple(declared.maintainers))
    hz = plan.contract.frontmatter.hz
    return team.identity.role_for(str(hz.owner), tuple(str(m) for m in hz.maintainers))


def _retired(team: Team, lease: str) -> bool:
    """Whether the remote's main once had this contract and no longer does. This machine's agent may still
    run the contract's last version (its text is in the agent's folder), but a hold begun on it is
    refused by the hook (HZS019), so the claim asks for none: asking failed the tick every time. Main's
    history is read only when its tip lacks the id."""
    if team.main is False:
        team.main = _main_contracts(team)
    return team.main is not None and team.main.retired(lease)


def _main_contracts(team: Team) -> Any:
    """The contracts on the remote's main as the tick's fetch saw it (None: the remote has no main)."""
    from hz.gitstate.lint_contracts import MainContracts

    if team.view is None:
        return MainContracts.on_remote(team.remote)
    if team.view.main is None:
        return None
    return MainContracts.at(team.remote.repo, team.remote.repo[team.view.main], strict=False)


def decide(
    team: Team, plan: Plan, slot: datetime, now: datetime, *, asked: bool = False, key: str | None = None
) -> Claim:
    """Whether this machine may take the lease for `plan`'s `slot` now, as of the tick's fetch, pushing
    nothing: a Claim with `won` when it is free to take (`claim` then pushes), else why not, with who
    holds it until when (hz.tick.dispositions says it to a person).

    `asked`: a turn a person started (wake, chat, retry): its slot is the minute they asked in, nobody's
    schedule slot, so no owner goes first and a delegate takes it at once (the lease still decides).
    `key`: the wake's own key (its first cause's, as its receipts are filed): ended on `hz/state`, it ran
    elsewhere whatever minute that was (`team_key`)."""
    return _decided(team, plan, slot, now, asked, key)[0]


def wish(
    team: Team, plan: Plan, slot: datetime, now: datetime, *, asked: bool = False, key: str | None = None
) -> tuple[Claim, Any]:
    """`decide`'s answer, with the lease commit to push when it is won (hz.gitstate.lease.Plan, else None)."""
    return _decided(team, plan, slot, now, asked, key)


def team_key(lease: str, key: str) -> str:
    """A local key (`<agent id>@…`) as the team files it: `<lease>@…` (hz.tick.team_receipts)."""
    return lease + "@" + key.split("@", 1)[1]


def _decided(
    team: Team, plan: Plan, slot: datetime, now: datetime, asked: bool = False, key: str | None = None
) -> tuple[Claim, Any]:
    from hz.gitstate.lease import Claim as LeaseClaim
    from hz.gitstate.lease import Outcome
    from hz.gitstate.lease import plan as lease_plan
    from hz.gitstate.types import format_utc
    from hz.slots import lease_stamp

    lease = lease_id(plan)
    if lease is None:
        return Claim(False, None, 0, "no contract id"), None
    if _retired(team, lease):  # the hook refuses any new hold on it
        return Claim(False, lease, 0, NOT_ON_MAIN), None
    role = role_of(team, plan, lease)
    if role is None:
        return Claim(False, lease, 0, "not a member of it"), None
    stamp = lease_stamp(slot)
    if lease in team.held:
        return _again(team, lease, stamp, role), None
    keys = (team_key(lease, key),) if key is not None and "@" in key else ()
    wish = LeaseClaim(lease, stamp, team.identity.holder, role, None if asked else slot, keys=keys)
    step = lease_plan(team.remote, wish, now, team.settings)
    if not isinstance(step, Outcome):
        return Claim(True, lease, int(step.record.token), "won", role, team.identity.handle), step
    if step.status == "done":  # its end is on hz/state: whoever ran it, this machine never will
        return Claim(False, lease, 0, RAN_ELSEWHERE, role), None
    if step.status == "early":
        until = format_utc(step.not_before) if step.not_before else None
        return Claim(False, lease, 0, "early", role, pending=True, until=until), None
    record = step.record
    holder = getattr(record, "holder", None)
    return Claim(False, lease, 0, f"held by {holder}", role, pending=True, holder_now=holder,
                 until=getattr(record, "expires", None), held_slot=getattr(record, "slot", None)), None  # fmt: skip


def claim(
    team: Team, plan: Plan, slot: datetime, now: datetime, *, asked: bool = False, key: str | None = None
) -> Claim:
    """Take the lease for `plan`'s `slot` (see `decide`); a race for it lost reads as held by the winner.

    The tick's acquisition push (hz.tick.team_batch) took most leases before any turn ran: such a lease is
    won already (`_again`), or was lost in that push; one that push did not try is taken here with a push
    of its own.

    Held by someone else (or a race for it lost), or too early for this role: nothing is settled here.
    The holder may die mid-turn (kill -9) and leave the slot undone; the next tick looks again and finds
    the slot done (ran-elsewhere) or the lease expired (taken over). Looking costs fetches, no model call."""
    from hz.gitstate.lease import push_plan
    from hz.slots import lease_stamp, same_slot

    lost = team.lost.get(lease_id(plan) or "")
    if lost is not None and same_slot(lost[0], lease_stamp(slot)):  # lost in the tick's acquisition push
        return lost[1]  # type: ignore[no-any-return]
    decided, step = _decided(team, plan, slot, now, asked, key)
    if step is None:
        if decided.won and decided.lease is not None:
            team.used.add(decided.lease)
        return decided
    assert decided.lease is not None
    outcome = push_plan(team.remote, step, now)
    if outcome.won:
        assert outcome.record is not None, "a won lease has its record"
        token = int(outcome.record.token)
        team.held[decided.lease], team.slots[decided.lease], team.plans[decided.lease] = (
            token,
            lease_stamp(slot),
            plan,
        )
        team.used.add(decided.lease)
        return Claim(True, decided.lease, token, "won", decided.role, team.identity.handle)
    return held_claim(decided.lease, decided.role, outcome.record)


def held_claim(lease: str, role: str, record: Any) -> Claim:
    """A race for `lease` lost: held by whoever holds it now (`record`, the winner's), pending till then."""
    holder = getattr(record, "holder", None)
    return Claim(False, lease, 0, f"held by {holder}", role, pending=True, holder_now=holder,
                 until=getattr(record, "expires", None), held_slot=getattr(record, "slot", None))  # fmt: skip


def _again(team: Team, lease: str, stamp: str, role: str) -> Claim:
    """A lease won earlier in this tick: the same slot is the same term, won again; another slot waits.

    Another slot waits for the next tick rather than taking a new term now: a new term would supersede
    the one whose receipts this tick's one push still carries (renewed under the newer token only), and
    a tick runs one schedule slot per agent anyway (catch-up goes a slot a tick).
    """
    from hz.slots import same_slot

    if same_slot(team.slots.get(lease, ""), stamp):
        return Claim(True, lease, team.held[lease], "won", role, team.identity.handle)
    why = f"this tick holds the lease for slot {team.slots.get(lease, '?')}"
    return Claim(False, lease, 0, why, role, pending=True)
