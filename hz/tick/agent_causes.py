"""The new causes of one agent's share of a tick (hz.tick.agentwork): approvals observed (a team draft's
read from `hz/state`), a truth gone stale, messages in the inbox, requests a turn left, and inputs whose
fingerprint moved since the last turn saw them.

`NewCauses` is a base of `AgentWork`; it reads the agent's spine and plan and writes only the approval
and rejection records a decided draft calls for.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.errors import HzError
from hz.repo_paths import fill_slot
from hz.review import approvals
from hz.turn import engine, history
from hz.turn.causes import CAUSE_ORDER, Cause, approval_key, asked_key, due_of, source_changed_key, stale_key
from hz.turn.engine import Deps
from hz.turn.journal import Journal
from hz.turn.plan import Plan

if TYPE_CHECKING:
    from hz.tick.candidates import Candidate


class NewCauses:
    """What wakes the agent now besides its open turns; the fields are `AgentWork`'s."""

    journal: Journal
    candidate: Candidate
    deps: Deps
    now: datetime
    team: Any

    @property
    def plan(self) -> Plan:
        return self.candidate.plan

    @property
    def name(self) -> str:
        return str(self.candidate.row["name"])

    def _approvals(self, entries: list[dict[str, Any]]) -> list[Cause]:
        """The approval turns due: one per placed draft found approved. A rejection is recorded at once.

        A team draft's fate is read from `hz/state` as this tick left it (recorded there by whoever saw
        it first, hz.review.approval_sweep): the spine takes it over, and only the owner's machine with
        a model runner spends a turn to learn from the reviewer's edits."""
        if self.team is not None and self.plan.scope == "team":
            return self._team_approvals(entries)
        causes: list[Cause] = []
        for key, seen in approvals.observe_all(self.journal, self.plan.agent_id, self._idempotency()):
            if seen.state == "approved":
                causes.append(self._lesson(key))
            else:
                approvals.record_rejection(self.journal, key, approver=None)
                entries.append({"agent": self.name, "action": "rejected", "key": key})
        return causes

    def _idempotency(self) -> Any:
        """A placed draft's idempotency key by this contract's `hz.idempotency` (hz.review.approvals.key_of):
        a personal draft is superseded by a newer one of its key, as a team draft's branch is."""
        from hz.review.branches import DEFAULT_IDEMPOTENCY

        frontmatter = getattr(self.plan.contract, "frontmatter", None)
        template = getattr(getattr(frontmatter, "hz", None), "idempotency", None) or DEFAULT_IDEMPOTENCY
        contract = str(getattr(frontmatter, "id", None) or self.plan.agent_id)
        return approvals.key_of(str(template), contract)

    def _team_approvals(self, entries: list[dict[str, Any]]) -> list[Cause]:
        from hz.gitstate.layout import STATE_REF, event_path
        from hz.gitstate.objects import resolve
        from hz.review.approval_state import StateBook
        from hz.tick.team import lease_id

        lease = lease_id(self.plan)
        remote = self.team.remote
        book = StateBook(remote.repo, resolve(remote.repo, remote.tracking(STATE_REF)))
        causes: list[Cause] = []
        for event in approvals.undecided(self.journal.events()):
            key = str(event.data["key"])
            team_key = f"{lease}@{key.split('@', 1)[1]}"
            # a draft another replaced is as decided here as a rejected one (no phantom pending draft);
            # the entry names the team's key, the one every member's `hz drafts` and `hz state log` show
            ended = (kind for kind in ("draft.rejected", "draft.superseded") if book.has(kind, str(lease), team_key))
            if (kind := next(ended, None)) is not None:
                approvals.record_rejection(self.journal, key, approver=None)
                entries.append({"agent": self.name, "action": kind.partition(".")[2], "key": team_key})
            elif (approved := book.read(event_path(str(lease), "approval.observed", team_key))) is not None:
                if self._learns():
                    causes.append(self._lesson(key))
                else:  # the spine knows it is decided; nobody here learns from it
                    approvals.record_approval(self.journal, key, dict(approved.data))
        return causes + self._placed_elsewhere(book, str(lease))

    def _placed_elsewhere(self, book: Any, lease: str) -> list[Cause]:
        """Lesson turns for the owner from the team's recent approvals of drafts a delegate or an Actions
        run placed (this spine never held them); only those whose placed text this clone can still read."""
        from hz.review.approval_publish import RETRY_FOR
        from hz.review.placed_text import placed_text

        if not self._learns():
            return []
        events = self.journal.events()
        known = {str(e.data["key"]) for e in events if e.kind in ("draft.placed", "approval.observed")}
        causes: list[Cause] = []
        for approved in book.of_kind("approval.observed"):
            key = f"{self.plan.agent_id}@{approved.key.split('@', 1)[1]}"
            if approved.id != lease or key in known or history.parse_ts(approved.ts) < self.now - RETRY_FOR:
                continue
            if placed_text(self.team.remote.root, self.deps.environ, approved.key) is not None:
                causes.append(self._lesson(key))
        return causes

    def _learns(self) -> bool:
        """Lessons from a team draft's review: on its owner's machine, with a model runner configured."""
        hz = self.plan.contract.frontmatter.hz
        model = getattr(self.deps.runner, "name", "offline") != "offline"
        return model and self.team.identity.role_for(str(hz.owner), ()) == "owner" and not self.team.identity.in_actions

    def _lesson(self, draft_key: str) -> Cause:
        return Cause("approval", approval_key(self.plan.agent_id, draft_key), self.now, {"draft_key": draft_key})

    def valid_until(self) -> datetime | None:
        """When the last approved output stops being true: its approval time plus `hz.freshness`."""
        if self.plan.freshness_s is None:
            return None
        approved = [
            e for e in self.journal.events() if e.kind == "approval.observed" and e.data.get("decision") == "approved"
        ]
        if not approved:
            return None
        return history.parse_ts(approved[-1].ts).replace(microsecond=0) + timedelta(seconds=self.plan.freshness_s)

    def _stale(self) -> list[Cause]:
        """Python, not the model, decides when a truth expires: a stale wake always renders."""
        until = self.valid_until()
        if until is None or self.now < until:
            return []
        output = sorted(self.plan.outputs)[0]
        return [Cause("stale", stale_key(self.plan.agent_id, output, until), until, {"output": output})]

    def _inbox(self) -> list[Cause]:
        """Messages a marker names that no spine took in: each answers a waiting question or is asked."""
        if not self.candidate.asked:
            return []
        from hz.session.inbox import list_requests
        from hz.turn.steering import answers

        taken = history.taken_requests(self.journal.events())
        named = set(self.candidate.asked) - taken
        causes: list[Cause] = []
        for request in list_requests(self.journal.directory):
            if request.request_id not in named:
                continue
            if request.cause in CAUSE_ORDER and request.key is not None:  # a wake a tick left: its own cause
                due = due_of(request.cause, request.key, history.parse_ts(request.received))
                causes.append(Cause(request.cause, request.key, due))
                continue
            if request.text and request.when_busy == "steer" and answers(self.journal, request):
                continue
            key = asked_key(self.plan.agent_id, request.request_id)
            causes.append(Cause("asked", key, history.parse_ts(request.received), {"request_id": request.request_id}))
        return causes

    def _requested(self) -> list[Cause]:
        """Requests a finished or stopped turn left for the next turn (they survive any crash)."""
        found: list[Cause] = []
        for event in history.requested_unstarted(self.journal.events()):
            kind, key = str(event.data["cause"]), str(event.data["key"])
            detail = {"request_id": key.rsplit("@", 1)[-1]} if kind == "asked" else {}
            found.append(Cause(kind, key, due_of(kind, key, history.parse_ts(event.ts)), detail))
        return found

    def _fingerprints(self) -> dict[str, str]:
        if not self.plan.inputs:
            return {}
        from hz.turn.gather import gather_inputs

        try:  # as the source is now, not as this minute was staged: a change is seen at the next tick
            found = gather_inputs(self.plan, _minute(self.now), environ=self.deps.environ, now=self.now, fresh=True)
            return dict(found.fingerprints)
        except HzError:
            return {}  # a source that fails moves nothing; the turn that gathers it says why

    def _last_finished(self, *, drafted: bool = False) -> Any:
        """The last finished turn that gathered this contract's inputs (an approval turn reads none), or with
        `drafted` the last one that placed a draft: what a nothing-moved skip compares with."""
        for event in reversed(self.journal.events()):
            if event.kind != "turn.finished" or event.data.get("cause") == "approval":
                continue
            if not drafted or event.data.get("disposition") == "drafted":
                return event
        return None

    def _last_inputs(self, *, drafted: bool = False) -> dict[str, str] | None:
        last = self._last_finished(drafted=drafted)
        return None if last is None else {str(k): str(v) for k, v in last.data.get("inputs", {}).items()}

    def _reported_slot(self) -> datetime | None:
        """The slot of the page the last turn drafted, when its outputs are one page per slot and it ran for
        a schedule slot (hz.turn.watch_window); None when it saw its inputs as of its own minute."""
        last = self._last_finished()
        if last is None or not any(fill_slot(t, self.now) != t for t in self.plan.targets.values()):
            return None
        started = [e for e in self.journal.events() if e.kind == "turn.started" and e.turn == last.turn]
        if not started or "schedule" not in started[-1].data.get("causes", []):
            return None
        return engine.turn_slot(started[-1])

    def _moved(self) -> list[Cause]:
        """Inputs the contract wakes on whose fingerprint moved since the last turn saw them: over the window
        of the page it drafted when that page is per slot (a commit of this week is no reason to redraft
        last week's page), else as of now."""
        if not self.plan.inputs or not self._watched():
            return []
        last = self._last_inputs()
        if last is None:
            return []
        current = self._fingerprints()  # also refreshes the source cache the own-draft check reads
        if (slot := self._reported_slot()) is not None:
            from hz.turn.watch_window import fingerprint_at

            for name in current:
                seen = fingerprint_at(self.plan, name, slot, now=self.now, environ=self.deps.environ)
                current[name] = seen if seen is not None else current[name]
        wake_on = self.plan.wake_on if self.plan.wake_on is not None else self.plan.inputs
        from hz.turn.self_wake import moved_by_drafts_only

        if self._last_finished().data.get("reason") == "gather":  # it saw nothing: an upstream readable now is news
            last = {**{name: "" for name in current if self._reads_upstream(name)}, **last}
        return [
            Cause("source-changed", source_changed_key(self.plan.agent_id, name, fp), self.now, {"input": name})
            for name, fp in sorted(current.items())
            if name in wake_on
            and last.get(name) not in (None, fp)
            # the merge of its own draft moving its history is no news to it (issue 11, finding 5)
            and not moved_by_drafts_only(self.plan, name, last[name], slot=_minute(self.now), environ=self.deps.environ)
        ]

    def _reads_upstream(self, name: str) -> bool:
        """Whether input `name` reads another contract's approved output (`contract:`): after a failed gather
        only such an input counts as moved by being readable now, since an approval is what makes it so (issue
        19, finding 7). A `file:` or `git:` input that could not be read then (no repository, say) is no news
        by being there now; its moves count from the first turn that saw it."""
        from hz.sources.watch import specs_of

        inputs = getattr(self.plan.contract.frontmatter.hz, "inputs", None) or {}
        return name in inputs and any(str(spec.uri).startswith("contract:") for spec in specs_of(inputs[name]))

    def _watched(self) -> bool:
        return bool(self.candidate.row.get("inputs")) and self.candidate.row.get("inputs") != "{}"


def _minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)
