"""The tick's acquisition push: before any turn runs, the lease of every team slot the tick is about to run
is decided (hz.tick.team_claim.decide, which pushes nothing) and all that are free to take are taken in one
atomic push (hz.gitstate.lease_batch), whatever their number. The turns then find their lease won
(`team_claim.claim`), or lost to another member in that push (held, as a lost race always reads).

Why not in the tick's finishing push (hz.tick.team_push): a lease must be on the remote before its turn
spends anything, or two members could both pay for the slot (docs/decisions.md, "Issue 22: one push per
tick"). So a drafting tick makes two pushes, however many slots it runs: this one, and the finishing one.

Which slots a tick runs is known for sure only once each agent's share runs under its spine's lock; this
takes the ones its due causes name and leaves out those whose wake may still come to nothing before its
claim (an `if-moved` schedule, an input waiting on another contract's approved draft, an open turn to
recover first): those claim with a push of their own, as before. A lease taken here that no turn ran under
after all (a cap, a busy spine, the wake budget) is released in the finishing push (`idle`).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hz.errors import HzError

if TYPE_CHECKING:
    from hz.tick.candidates import Candidate
    from hz.tick.team import Team


def claim_due(
    team: Team, candidates: Sequence[Candidate], budget: int, now: datetime, open_agents: AbstractSet[str]
) -> None:
    """Take, in one push, the leases of the team slots among the candidates the tick's budget of wakes will
    start (a contract held elsewhere, done, or not ours spends none of it; see above);
    `open_agents`: the agents with a turn running or waiting, whose recovery comes first and claims its own."""
    from hz.gitstate.lease_batch import push_plans
    from hz.slots import lease_stamp
    from hz.tick.team_claim import Claim, held_claim, wish

    wishes: dict[str, tuple[Any, datetime, Any]] = {}
    starts = 0  # wakes that will spend the tick's budget: a slot held elsewhere or not ours spends none
    for candidate in candidates:
        if starts >= budget:
            break
        if candidate.plan.scope != "team":
            starts += 1
            continue
        predicted = None if candidate.agent_id in open_agents else _slot(candidate, now)
        if predicted is None:
            continue
        slot, asked, key = predicted
        try:
            decided, step = wish(team, candidate.plan, slot, now, asked=asked, key=key)
        except HzError:  # the turn's own claim says it, where it belongs
            continue
        if step is not None and decided.lease is not None and decided.lease not in wishes:
            wishes[decided.lease] = (candidate.plan, slot, step)
            starts += 1
    if not wishes:
        return
    try:
        outcomes = push_plans(team.remote, {lease: step for lease, (_, _, step) in wishes.items()}, now)
    except HzError:  # unreached now: each turn's own claim tries again and says why
        return
    for lease, outcome in outcomes.items():
        plan, slot, step = wishes[lease]
        if outcome.won:
            team.held[lease], team.slots[lease], team.plans[lease] = int(step.record.token), lease_stamp(slot), plan
            team.batched.add(lease)
        else:
            lost: Claim = held_claim(lease, step.record.role, outcome.record)
            team.lost[lease] = (lease_stamp(slot), lost)


def idle(team: Team) -> tuple[str, ...]:
    """The leases the acquisition push took that no turn of this tick ran under: released in the tick's
    finishing push, so the slot is free for the next tick (here or elsewhere) at once."""
    return tuple(sorted(team.batched - team.used))


def _slot(candidate: Candidate, now: datetime) -> tuple[datetime, bool, str] | None:
    """The slot a team candidate's wake will claim, whether a person asked for it, and the wake's key;
    None: not known before its share of the tick runs (see the module docstring)."""
    from hz.turn.causes import coalesce
    from hz.turn.engine import wake_slot

    plan = candidate.plan
    if plan.scope != "team" or not candidate.causes:
        return None
    wake = coalesce(plan.agent_id, candidate.causes)
    if wake.kinds() == {"schedule"} and plan.render_on_schedule == "if-moved":
        return None
    if _waits_upstream(plan):
        return None
    return wake_slot(wake, now), wake.kinds() <= {"asked", "retry"}, wake.key


def _waits_upstream(plan: Any) -> bool:
    """Whether an input reads another contract's approved output: its wake may wait for it instead."""
    from hz.sources.watch import specs_of

    inputs = getattr(plan.contract.frontmatter.hz, "inputs", None) or {}
    return any(str(spec.uri).startswith("contract:") for name in inputs for spec in specs_of(inputs[name]))
