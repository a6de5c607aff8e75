"""The lease side of a state writer's push (hz.gitstate.writer): which claims go in it, the renewal of every
held lease (or its release, when its turn ends in the push, see `ended`), and after a refusal, which leases
moved on (fenced) and which refs git only refused as collateral of an atomic push.

`LeaseSteps` is a base of `StateWriter`; it asks the remote through hz.gitstate.lease.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from datetime import datetime

from hz.gitstate import lease
from hz.gitstate.events import Event
from hz.gitstate.flush_result import FlushResult
from hz.gitstate.layout import lease_ref
from hz.gitstate.lease_lint import DamagedLease
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.outbox import Outbox
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.transport import ZERO, RefResult

UNKNOWN = RefResult("", "!", "")


class LeaseSteps:
    """The lease steps of a flush; the fields are `StateWriter`'s."""

    team: TeamRemote
    settings: StateSettings
    outbox: Outbox

    def _holding(self, lease_id: str, token: int) -> bool:
        """Do we hold this lease under this token? A lease ref damaged on the remote is held by nobody."""
        try:
            return lease.holding(self.team, lease_id, token) is not None
        except DamagedLease:
            return False

    def _plans(
        self, wanted: dict[str, lease.Claim], busy: set[str], now: datetime, result: FlushResult
    ) -> dict[str, lease.Plan]:
        """Decide each claim; a lost one leaves `wanted`. A lease with events in this push is claimed only
        on top of the tip we hold, so its events are never written under somebody else's lease."""
        plans: dict[str, lease.Plan] = {}
        for lease_id, claim in list(wanted.items()):
            step = lease.plan(self.team, claim, now, self.settings)
            if isinstance(step, lease.Outcome):
                result.lost[lease_id] = step
                del wanted[lease_id]
                continue
            mine = lease.held(self.team, lease_id) if lease_id in busy else None
            if lease_id not in busy or (mine is not None and step.parent == mine.tip):
                plans[lease_id] = step
        return plans

    def _lease_updates(
        self,
        leases: list[str],
        plans: dict[str, lease.Plan],
        now: datetime,
        result: FlushResult,
        updates: dict[str, str],
        expected: dict[str, str],
        finished: AbstractSet[tuple[str, int]] = frozenset(),
        idle: AbstractSet[str] = frozenset(),
    ) -> dict[str, tuple[str, LeaseRecord]]:
        """Add a renewal of every held lease and an acquisition of every planned claim to the push; a held
        lease whose turn ends in this push (`finished`, see `ended`) or that no turn used (`idle`) is
        released instead of renewed."""
        moved: dict[str, tuple[str, LeaseRecord]] = {}
        for lease_id in leases:
            mine = lease.held(self.team, lease_id)
            if mine is None:
                result.fenced.add(lease_id)
                continue
            release = (lease_id, mine.record.token) in finished or lease_id in idle
            moved[lease_id] = lease.renewal(self.team, mine, now, self.settings.ttl, release=release)
            expected[lease_ref(lease_id)] = mine.tip
        for lease_id, step in plans.items():
            moved[lease_id] = (lease.lease_commit(self.team, step.parent, step.record, now), step.record)
            expected[lease_ref(lease_id)] = step.parent or ZERO
        for lease_id, (commit, _) in moved.items():
            updates[lease_ref(lease_id)] = commit
        return moved

    def _after_refusal(
        self,
        events: list[Event],
        renewed: dict[str, tuple[str, LeaseRecord]],
        refs: dict[str, RefResult],
        result: FlushResult,
    ) -> list[Event]:
        """Find out why: a lease that moved on is fenced (drop its events); otherwise hz/state moved.

        With --atomic, git reports the ref that failed its check with the reason and every other ref as
        collateral (see `collateral`); only leases reported otherwise need a look at the remote. When the
        remote's own lock failed, every ref is collateral and none is looked at: the retry's fetch then
        shows a moved lease as stale. Misjudging here costs a retry, never safety: the remote's
        compare-and-swap decides.
        """
        unsure = {lid for lid in renewed if not collateral(refs.get(lease_ref(lid), UNKNOWN).summary)}
        return self._fence(events, unsure, result)

    def _fence(self, events: list[Event], lease_ids: set[str], result: FlushResult) -> list[Event]:
        """Ask the remote where these leases are; those we no longer hold are fenced, their events dropped."""
        moved = {lease_id for lease_id in lease_ids if not self._still_ours(lease_id)}
        for lease_id in moved:
            lease.forget(self.team, lease_id)
        result.fenced |= moved
        dropped = [e for e in events if e.lease in moved]
        self.outbox.remove(dropped)
        result.dropped.extend(dropped)
        return [e for e in events if e.lease not in moved]

    def _still_ours(self, lease_id: str) -> bool:
        """Is the remote's lease still our acquisition (same token, held)?

        A tip other than the one we remember can still be ours: a renewal of ours that landed just
        before a crash kept us from writing the new tip down. The token decides, not the tip. A ref
        damaged on the remote (a server without the hook let anything in) is ours no longer: its events
        are fenced like a take-over's, and the tick goes on with the rest.
        """
        mine = lease.held(self.team, lease_id)
        if mine is None:
            return False
        try:
            view = lease.read_lease(self.team, lease_id)
        except DamagedLease:
            return False
        record, tip = view.record, view.tip
        if record is None or tip is None:
            return False
        ours = (record.token, record.holder, record.state) == (mine.record.token, mine.record.holder, "held")
        if ours and tip != mine.tip:
            lease.remember(self.team, record, tip)
        return ours


def ended(events: Iterable[Event]) -> set[tuple[str, int]]:
    """The lease terms (lease, token) whose turns all end among `events`: the push that carries a term's
    `turn.finished` releases its lease, so the next slot never waits for a finished one to expire. A term
    that also starts a turn it does not finish here (a follow-up that waits) keeps its lease."""
    started: set[tuple[str, int, str]] = set()
    finished: set[tuple[str, int, str]] = set()
    for event in events:
        if event.kind in ("turn.started", "turn.finished"):
            term = (event.lease, event.token, str(event.data.get("turn")))
            (started if event.kind == "turn.started" else finished).add(term)
    open_terms = {(lease_id, token) for lease_id, token, _ in started - finished}
    return {(lease_id, token) for lease_id, token, _ in finished} - open_terms


def collateral(summary: str) -> bool:
    """Was this ref refused only because another ref of the atomic push failed?

    git says "atomic push failed" when its own check refused another ref before sending anything, and
    "(atomic transaction failed)" for every ref when the remote could not lock one of them (another
    member's push landed between the advertisement and the update). Neither is about this ref.
    """
    return "atomic push failed" in summary or "atomic transaction failed" in summary
