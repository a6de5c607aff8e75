"""Taking many leases in one push: the acquisitions a tick decided on (hz.gitstate.lease.plan), all in one
`git push --atomic`, each ref guarded by `--force-with-lease=<ref>:<the tip that was seen>`.

All or nothing is what makes one push safe for many leases: either every lease moved from the tip this
machine saw to its acquisition, or none did. When the remote refuses, one ls-remote tells which leases moved
since the look (another member took them: lost, read as held by whoever is there now) and the rest go once
more in one push. What is still not settled after that (a second refusal, the hook declining the push, a
lease ref damaged on the remote) is left out of the answer: the caller takes those one push each, as before
batching, where a refusal is that lease's own error and nobody else's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from datetime import datetime

from hz.gitstate.layout import lease_ref
from hz.gitstate.lease import Outcome, Plan, lease_commit, record_at, remember
from hz.gitstate.lease_lint import DamagedLease
from hz.gitstate.remote import TeamRemote
from hz.gitstate.transport import ZERO

ATTEMPTS = 2  # the push, and once more with the leases nobody else took meanwhile


def push_plans(team: TeamRemote, steps: Mapping[str, Plan], now: datetime) -> dict[str, Outcome]:
    """Push the lease commits of `steps` (lease id -> plan) at once: lease id -> won, or held by the winner.

    A lease missing from the answer is not settled here (see the module docstring)."""
    commits = {lease_id: lease_commit(team, step.parent, step.record, now) for lease_id, step in steps.items()}
    outcomes: dict[str, Outcome] = {}
    pending = dict(steps)
    for _ in range(ATTEMPTS):
        if not pending:
            break
        updates = {lease_ref(lease_id): commits[lease_id] for lease_id in pending}
        expected = {lease_ref(lease_id): step.parent or ZERO for lease_id, step in pending.items()}
        result = team.git.push(team.remote, updates, expected)
        if result.ok:
            for lease_id, step in pending.items():
                remember(team, step.record, commits[lease_id])
                outcomes[lease_id] = Outcome("won", step.record, commits[lease_id])
            return outcomes
        if result.hook_declined:  # git does not say which ref the hook refused: each goes on its own
            return outcomes
        for lease_id in _moved(team, pending, outcomes):
            del pending[lease_id]
    return outcomes


def _moved(team: TeamRemote, pending: Mapping[str, Plan], outcomes: dict[str, Outcome]) -> list[str]:
    """The leases of a refused push that are no longer where this machine saw them (one ls-remote), each
    noted as held by whoever holds it now; a damaged one is only taken out (its own push says so)."""
    refs = {lease_ref(lease_id): lease_id for lease_id in pending}
    tips = team.tips(refs)
    moved = {ref: tip for ref, tip in tips.items() if (tip or None) != (pending[refs[ref]].parent or None)}
    if moved:
        team.bring(moved)
    for ref, tip in moved.items():
        lease_id = refs[ref]
        with contextlib.suppress(DamagedLease):
            outcomes[lease_id] = Outcome("held", record_at(team, lease_id, tip), tip)
    return [refs[ref] for ref in moved]
