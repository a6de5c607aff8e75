"""Which leases a tick's claims will read, for a clone that fetched none (an Actions run's, hz.review.sync).

An Actions run adopts every team contract afresh, so every one of them is a candidate of its tick (a
`created` wake at the least), yet most claims end before they look at the lease: a delegate or an Actions
run waits out the grace period after the slot (`early`), whatever the lease says. The leases worth fetching
are those of the other candidates: the contracts due now. A guess too small costs only time (a claim that
finds its lease not fetched fetches it itself, hz.gitstate.lease.read_lease); it never claims blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hz.tick.candidates import Candidate
    from hz.tick.team import Team


def due_leases(team: Team, candidates: Sequence[Candidate], now: datetime) -> list[str]:
    """The lease ids of the team candidates whose claim reads its lease at `now` (see the module's text)."""
    from hz.tick.team import lease_id

    found: list[str] = []
    for candidate in candidates:
        lease = lease_id(candidate.plan) if candidate.plan.scope == "team" and candidate.causes else None
        if lease is not None and lease not in found and not _early(team, candidate, lease, now):
            found.append(lease)
    return found


def _early(team: Team, candidate: Candidate, lease: str, now: datetime) -> bool:
    """Whether the claim will wait for the grace period before reading the lease, by the claim's own rule
    (hz.gitstate.lease.grace_ends; a wake a person asked for has no due slot, as in team_claim.wish). Any
    doubt reads as not early (the lease is fetched)."""
    from hz.gitstate.lease import grace_ends
    from hz.tick.team_claim import role_of
    from hz.turn.causes import coalesce
    from hz.turn.engine import wake_slot

    wake = coalesce(candidate.plan.agent_id, candidate.causes)
    due = None if wake.kinds() <= {"asked", "retry"} else wake_slot(wake, now)
    role = role_of(team, candidate.plan, lease)
    return role is not None and grace_ends(role, due, now, team.settings) is not None
