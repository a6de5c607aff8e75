"""Writing `hz/state`: a tick's events in one commit, pushed atomically with the writer's lease renewals.

For the turn engine:

    writer = StateWriter(team, settings)
    writer.queue(*events)                # during a tick; one durable outbox file per call
    result = writer.flush(now, claims=[Claim(id, slot, holder, role, due)])
                                         # once per tick; no push at all when nothing is queued or claimed
    result.won / result.lost             # the claims taken in this very push, and why others were not
    result.fenced                        # lease ids whose lease moved on: record those turns abandoned
    writer.flush(now, publish={"refs/heads/hz/draft/…": Draft(commit, lease_id, token)})
                                         # team draft branches ride in the push that renews their lease
    result.withheld                      # draft refs never pushed: their lease was taken over

`flush` builds one commit on the remote's current tip adding every queued event not yet there
(the tip its own last push landed, without a fetch, until someone else pushes: see `_state_tip`),
lints it, and makes one `git push --atomic` of that commit, a renewal of every lease the events
name and an acquisition for every claim that is free to take, each ref guarded by
`--force-with-lease=<ref>:<expected>`: the tick's one push. A holder whose lease was taken over
is refused by the remote; its events are dropped (they would be void anyway) and reported as fenced.
A draft branch is tied to the lease and token of the turn that placed it: it goes only in a push that
renews that lease under that token, and when the lease is fenced it is dropped with the receipts
(`result.withheld`), never pushed alone.
A push refused only because `hz/state` moved is replayed on the new tip after a jittered, growing
pause, at most `settings.push_attempts` times; what is still queued then goes out on the next flush.
Events the remote's hook refuses are set aside and reported (`result.refused`, hz.gitstate.refused),
never retried, and the rest go again at once: one refused receipt never holds back the outbox.

What a flush takes and gives is in hz.gitstate.flush_result, its lease steps in hz.gitstate.writer_leases.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from hz.errors import HzError
from hz.gitstate import lease, objects
from hz.gitstate.double_run import message, read_event, rerun, started_before
from hz.gitstate.events import Event, path_of
from hz.gitstate.flush_result import Draft, FlushResult, PushRefused
from hz.gitstate.layout import STATE_REF
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.lint import check_event_file
from hz.gitstate.outbox import Outbox
from hz.gitstate.refused import SetAside, named_in
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.transport import ZERO
from hz.gitstate.writer_leases import UNKNOWN, LeaseSteps, collateral

BACKOFF_BASE_S = 0.025
BACKOFF_CAP_S = 2.0


class StateWriter(LeaseSteps):
    def __init__(
        self,
        team: TeamRemote,
        settings: StateSettings,
        *,
        rng: random.Random | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.team = team
        self.settings = settings
        self.outbox = Outbox(team.local_dir / "outbox")
        self.set_aside = SetAside(team.local_dir / "refused")
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._clock = clock
        self._landed: str | None = None  # the hz/state commit this writer's last push put on the remote
        self._looked = False  # whether the tip the tick's fetch saw (TeamRemote.looked) was guessed already
        self._idle: set[str] = set()  # leases this flush releases though no turn of theirs ends in it
        self._closed: set[str] = set()
        self._at: datetime | None = None  # the moment of this flush's push, for the holder's margin

    def queue(self, *events: Event) -> int:
        """Queue events for the next flush, with one fsync; returns how many were new (not queued already)."""
        return self.outbox.put(events)

    def flush(
        self,
        now: datetime,
        renew: Iterable[str] = (),
        claims: Iterable[lease.Claim] = (),
        publish: Mapping[str, Draft] | None = None,
        release: Iterable[str] = (),
        at: datetime | None = None,
    ) -> FlushResult:
        """Push what is queued, renew the named leases and take the claimed ones, all in one atomic push.

        A claim that loses (the lease is held, too early for this role, or the slot is done) is
        reported in `lost` and left out of the retry, so it never blocks the events. `publish` names
        draft branches (ref -> Draft, see there) to carry along, each tied to a lease only in a push that
        renews its lease under its token (so that lease is renewed even with no events of its own): one
        whose lease was taken over is `withheld`, one the remote refuses for its own reason is reported
        in `unpublished` and left out of the retry, like a lost claim. `release` names held leases to release
        rather than renew (taken for a turn that did not run). `at`: the moment of the push when it is later
        than `now` (a tick's clock moves on while its turns run), for whether a term is still safely ours
        (hz.gitstate.writer_leases). See the module docstring for the rest.
        """
        result = FlushResult()
        events = self.outbox.events()
        wanted = {claim.lease_id: claim for claim in claims}
        refs = dict(publish or {})
        events = self._drop_unheld(events, result)
        self._withhold_unheld(refs, result)
        self._idle, self._at = set(release), at
        extra = set(renew) | self._idle | {draft.lease for draft in refs.values() if draft.lease}
        attempt = 0
        while (events or extra or wanted or refs) and attempt < max(1, self.settings.push_attempts):
            attempt += 1
            started = self._clock()
            events, done = self._attempt(events, extra, wanted, now, result, refs)
            if done:
                extra, wanted = set(), {}
                break
            refused = self._refused(refs, result)  # a refused ref, like a fence, is no reason to wait
            if result.fenced or refused:
                extra -= result.fenced
            elif attempt < self.settings.push_attempts:
                self._sleep(self._pause(attempt, self._clock() - started))
        result.pending = len(self.outbox)
        return result

    def _withhold_unheld(self, refs: dict[str, Draft], result: FlushResult) -> None:
        """Draft refs whose (lease, token) this machine no longer holds are never pushed, like their
        receipts (`_drop_unheld`); the lease is fenced unless a later term of it is ours."""
        for ref, draft in list(refs.items()):
            if draft.lease and not self._holding(draft.lease, draft.token):
                if lease.held(self.team, draft.lease) is None:
                    result.fenced.add(draft.lease)
                result.withheld[ref] = draft.lease
                del refs[ref]

    @staticmethod
    def _tied(refs: dict[str, Draft], moved: Mapping[str, tuple[str, LeaseRecord]], result: FlushResult) -> None:
        """Keep only the draft refs whose lease this push renews under their token; the rest are withheld.

        A lease missing from `moved` was fenced (its note is gone), and a renewal under another token is
        a later acquisition of ours: a draft never rides on a lease term that is not its own."""
        for ref, draft in list(refs.items()):
            if not draft.lease:
                continue
            renewal = moved.get(draft.lease)
            if renewal is None or renewal[1].token != draft.token:
                result.withheld[ref] = draft.lease
                del refs[ref]

    @staticmethod
    def _refused(refs: dict[str, Draft], result: FlushResult) -> bool:
        """Take the `publish` refs the remote refused for their own reason out of the retry."""
        said = {ref: result.refs[ref] for ref in refs if ref in result.refs}
        refused = {ref: r.summary for ref, r in said.items() if r.flag == "!" and not collateral(r.summary)}
        for ref, why in refused.items():
            del refs[ref]
            result.unpublished[ref] = why
        return bool(refused)

    def _pause(self, attempt: int, span: float) -> float:
        """Jittered exponential backoff in units of what one attempt took here: on a slow remote or a
        busy machine the racing writers spread out over as many attempt-lengths as there are of them."""
        unit = max(BACKOFF_BASE_S, span)
        return self._rng.uniform(0, min(BACKOFF_CAP_S, unit * 2**attempt))

    def _drop_unheld(self, events: list[Event], result: FlushResult) -> list[Event]:
        """Events whose (lease, token) this machine no longer holds can never be written: fenced."""
        keep: list[Event] = []
        holding: dict[tuple[str, int], bool] = {}
        for event in events:
            ident = (event.lease, event.token)
            if ident not in holding:
                holding[ident] = self._holding(event.lease, event.token)
            if not holding[ident]:
                result.fenced.add(event.lease)
                result.dropped.append(event)
            else:
                keep.append(event)
        self.outbox.remove(result.dropped)
        return keep

    def _attempt(
        self,
        events: list[Event],
        extra: set[str],
        wanted: dict[str, lease.Claim],
        now: datetime,
        result: FlushResult,
        refs: dict[str, Draft],
    ) -> tuple[list[Event], bool]:
        """One try; returns the events still to write and whether this flush is finished."""
        tip, guessed = self._state_tip()
        fresh = self._drop_unheld(self._not_there(tip, events, result), result)
        plans = self._plans(wanted, {e.lease for e in fresh}, now, result)
        leases = sorted(({e.lease for e in fresh} | extra) - set(plans))
        if not fresh and not leases and not plans and not refs:
            return [], True
        updates: dict[str, str] = {}
        expected: dict[str, str] = {}
        if fresh:
            updates[STATE_REF] = self._commit(tip, fresh, now)
            expected[STATE_REF] = tip or ZERO
        moved = self._lease_updates(leases, plans, now, result, updates, expected, fresh, self._idle, self._at)
        self._tied(refs, {lid: step for lid, step in moved.items() if lid not in plans}, result)
        updates.update({ref: draft.commit for ref, draft in refs.items()})
        expected.update({ref: draft.expected for ref, draft in refs.items() if draft.expected is not None})
        if not updates:  # every lease named was fenced, and its drafts withheld: nothing left to push
            return [], True
        pushed = self.team.git.push(self.team.remote, updates, expected)
        result.pushes += 1
        result.refs = pushed.refs
        if pushed.ok:
            for lease_id, (commit, record) in moved.items():
                if record.state == "released" or lease_id in self._closed:  # its term ended in this push
                    lease.forget(self.team, lease_id)
                    result.released.add(lease_id)
                else:
                    lease.remember(self.team, record, commit)
                if lease_id in plans:
                    result.won[lease_id] = record
            for lease_id in set(wanted) - set(plans):  # never expected: a busy lease that moved yet renewed
                result.lost[lease_id] = lease.Outcome("held", None, None)
            if fresh:
                objects.set_ref(self.team.repo, self.team.tracking(STATE_REF), updates[STATE_REF])
            self._landed = updates.get(STATE_REF, tip)
            self.outbox.remove(fresh)
            result.landed.extend(fresh)
            result.published.update({ref: draft.commit for ref, draft in refs.items()})
            return [], True
        if pushed.hook_declined:
            rest = self._declined(events, fresh, pushed.stderr, result)  # fewer each time: this ends
            return self._attempt(rest, extra, wanted, now, result, refs)
        renewed = {lease_id: moved[lease_id] for lease_id in leases if lease_id in moved}
        self._landed = None
        rest = self._after_refusal(fresh, renewed, pushed.refs, result)
        if (
            guessed and "stale info" in pushed.refs.get(STATE_REF, UNKNOWN).summary
        ):  # the guess was old (git refused it before sending anything): look, and go again now
            return self._attempt(rest, extra, wanted, now, result, refs)
        return rest, False

    def _declined(self, events: list[Event], fresh: list[Event], stderr: str, result: FlushResult) -> list[Event]:
        """The hook refused the push: the events it names are set aside (hz.gitstate.refused), reported in
        `result.refused`, and the rest go again; a refusal that names none of ours is PushRefused."""
        said = "\n".join(
            line.removeprefix("remote: ").rstrip() for line in stderr.splitlines() if line.startswith("remote: ")
        )
        named = named_in(fresh, said)
        if not named:
            raise PushRefused(f"the remote refused hz/state: {stderr.strip()}")
        self.set_aside.put(named, said)
        self.outbox.remove(named)
        result.refused[said] = named
        gone = {path_of(event) for event in named}
        return [event for event in events if path_of(event) not in gone]

    def _state_tip(self) -> tuple[str | None, bool]:
        """hz/state's tip to build on, and whether it is a guess.

        The commit this writer's last push landed is the remote's tip until someone else pushes, so the
        next push builds on it without a fetch; its expected value checks the guess, and a wrong one is
        refused by git after the ref advertisement, before any object is sent. Otherwise: one fetch.
        """
        if self._landed is not None and objects.resolve(self.team.repo, self.team.tracking(STATE_REF)) == self._landed:
            return self._landed, True
        known, seen = self.team.looked(STATE_REF)
        if known and not self._looked:  # the tick's own fetch saw it: a guess as good, checked the same way
            self._looked = True
            return seen, True
        return self.team.fetch_tip(STATE_REF), False

    def _not_there(self, tip: str | None, events: list[Event], result: FlushResult) -> list[Event]:
        """Drop events whose identity is on hz/state already: an identity lands once, never twice.

        The same bytes there mean an earlier push of ours landed; other bytes mean another runner
        wrote it, so we check whether our lease moved on (fenced) and drop ours either way. A
        `turn.started` for a slot another token started (in either spelling of the slot's time) is a
        second run the hook would refuse (HZS021). A second run's events are never dropped silently:
        they are `clashed`, with why, unless their lease was taken over: then they are fenced.
        """
        if tip is None:
            return events
        events = self._not_archived(tip, events, result)

        def read(path: str) -> bytes | None:
            return objects.read_path(self.team.repo, tip, path)

        there = {id(e): read(path_of(e)) for e in events}
        same = [e for e in events if there[id(e)] == e.line()]
        clashes = {id(e): why for e in events if there[id(e)] != e.line() and (why := _clash(e, there[id(e)], read))}
        other = [e for e in events if there[id(e)] not in (None, e.line()) or id(e) in clashes]
        self.outbox.remove(same + other)
        result.already.extend(same)
        result.dropped.extend(other)
        rest = [e for e in events if there[id(e)] is None and id(e) not in clashes]
        kept = self._fence(rest, {e.lease for e in other}, result)
        # a fenced term's events are void, said as fenced: only a lease still ours runs a slot a second time
        clashed = [e for e in other if id(e) in clashes and e.lease not in result.fenced]
        result.clashed.update({path_of(e): clashes[id(e)] for e in clashed})
        return kept

    def _not_archived(self, tip: str, events: list[Event], result: FlushResult) -> list[Event]:
        """Events older than the archive's horizon are archived already or too late to record, and one whose
        mark the archive holds was recorded and moved off the tip (the hook refuses both, HZS027): never
        pushed (hz.gitstate.archive_lint). The first are dropped, the second are already there."""
        from hz.gitstate.archive_lint import behind, horizon, moved_marks
        from hz.gitstate.layout import moved_mark

        tree = _tree(self.team.repo, tip)
        limit = horizon(self.team.repo, tree)
        if limit is None:
            return events
        late = [e for e in events if behind(e, limit)]
        marks = moved_marks(self.team.repo, tree)
        moved = [e for e in events if e not in late and marks and moved_mark(path_of(e)) in marks]
        self.outbox.remove(late + moved)
        result.dropped.extend(late)
        result.already.extend(moved)
        return [e for e in events if e not in late and e not in moved]

    def _commit(self, tip: str | None, events: list[Event], now: datetime) -> str:
        import pygit2

        files = {path_of(e): e.line() for e in events}
        for path, data in files.items():
            if problems := check_event_file(path, data):
                raise HzError(f"refusing to push an event that fails the lint: {problems[0].render()}")
        base = self.team.repo[tip].peel(pygit2.Tree).id if tip else None
        tree = objects.write_tree(self.team.repo, base, files)
        message = f"hz-state: {len(files)} event{'s' if len(files) != 1 else ''}\n"
        return objects.make_commit(self.team.repo, tree, [tip] if tip else [], message, now)


def _tree(repo: Any, tip: str) -> Any:
    return repo[tip].tree


def _clash(event: Event, there: bytes | None, read: Callable[[str], bytes | None]) -> str:
    """Why `event` is a second run's: another token wrote its identity, or started its slot ("" if not).

    Other bytes under the same token are this run's own earlier copy (remade after a crash): dropped,
    but nothing is hidden, so they are no clash."""
    if there is None:
        first = started_before(read, event)
        return message(event, first) if first is not None else ""
    if why := rerun(there, event.line()):
        return why
    first = read_event(there)
    if first is None or first.token == event.token:
        return ""
    return f"{event.kind} {event.key} was written under token {first.token}; token {event.token}'s copy is not"
