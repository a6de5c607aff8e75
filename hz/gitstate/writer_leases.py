"""The lease side of a state writer's push (hz.gitstate.writer): which claims go in it, the renewal of every
held lease (or the end of its term, when its turn ends in the push, see `ended`), and after a refusal, which
leases moved on (fenced) and which refs git only refused as collateral of an atomic push.

`LeaseSteps` is a base of `StateWriter`; it asks the remote through hz.gitstate.lease.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from datetime import datetime

from hz.gitstate import lease, lease_term
from hz.gitstate.events import Event, path_of
from hz.gitstate.flush_result import FlushResult
from hz.gitstate.layout import STATE_REF, lease_ref
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
    _closed: set[str]  # the leases the last push ended with no commit of their own (`_lease_updates`)

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
        events: Iterable[Event] = (),
        idle: AbstractSet[str] = frozenset(),
        at: datetime | None = None,
    ) -> dict[str, tuple[str, LeaseRecord]]:
        """Add a renewal of every held lease and an acquisition of every planned claim to the push; a held
        lease whose term ends in this push (its turns all end among `events`, see `ended`) or that no turn
        used (`idle`) is not renewed.

        A term whose turn's `turn.finished` goes in this push, filed as every reader looks for it
        (hz.gitstate.lease_term), ends with no commit of its own: the lease ref stays at the tip we hold and
        is only guarded, `<tip>:<ref>` with `--force-with-lease=<ref>:<tip>`. git refuses the whole atomic
        push when the remote's lease is no longer at that tip (stale info), so a writer whose lease was
        taken over is refused as before, and `_after_refusal` reports it fenced. What the guard leaves open
        is the moment between the remote's advertisement and its update, which a ref of the push that moves
        would close under the remote's lock; so the guard alone is used only while the term is still valid
        for its holder at `at` (the moment of the push: a taker waits for `expires + clock_skew_s`, we stop at
        `expires - clock_skew_s`). A later push, a term ended otherwise (its turn filed under another key) and
        an idle lease are released by a commit, as before. `self._closed` names the leases ended by a guard."""
        moved: dict[str, tuple[str, LeaseRecord]] = {}
        events = list(events)
        finished, filed = ended(events), {path_of(e): e.line() for e in events}
        self._closed = set()
        for lease_id in leases:
            mine = lease.held(self.team, lease_id)
            if mine is None:
                result.fenced.add(lease_id)
                continue
            expected[lease_ref(lease_id)] = mine.tip
            release = (lease_id, mine.record.token) in finished or lease_id in idle
            valid = mine.record.valid_for_holder(at or now, self.settings.skew, ended=False)
            if release and lease_id not in idle and valid and lease_term.finished(filed.get, mine.record):
                moved[lease_id] = (mine.tip, mine.record)  # pushed where it is: the guard above
                self._closed.add(lease_id)
                continue
            moved[lease_id] = lease.renewal(self.team, mine, now, self.settings.ttl, release=release)
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
        collateral (see `collateral`), or as up to date when it was only guarded (a term that ends in this
        push, see `_lease_updates`); only leases reported otherwise need a look at the remote. When the
        remote's own lock failed, every ref is collateral and none is looked at: the retry's fetch then
        shows a moved lease as stale. Misjudging here costs a retry, never safety: the remote's
        compare-and-swap decides.
        """
        said = {lid: refs.get(lease_ref(lid), UNKNOWN) for lid in renewed}
        # a guarded lease git found up to date ("=") was where we hold it when the push was refused
        unsure = {lid for lid, ref in said.items() if not collateral(ref.summary) and ref.flag != "="}
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
        before a crash kept us from writing the new tip down. The token decides, not the tip, unless the
        term is over (hz.gitstate.lease_term: its turn finished on hz/state). A ref
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
        if ours and lease_term.over(lease_term.reader(self.team.repo, self.team.current(STATE_REF)), record):
            return False  # its turn's end is on hz/state (read after the lease): the term is over
        if ours and tip != mine.tip:
            lease.remember(self.team, record, tip)
        return ours


def ended(events: Iterable[Event]) -> set[tuple[str, int]]:
    """The lease terms (lease, token) whose turns all end among `events`: the push that carries a term's
    `turn.finished` ends its term (with no commit, or with a release: see `LeaseSteps._lease_updates`), so
    the next slot never waits for a finished one to expire. A term that also starts a turn it does not
    finish here (a follow-up that waits) is renewed."""
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
