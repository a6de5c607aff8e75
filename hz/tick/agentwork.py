"""One agent's share of a tick, under its spine's lock: open turns first, then one wake of new causes.

What the new causes are is found by its base, hz.tick.agent_causes.NewCauses.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.errors import HzError
from hz.session.store import Store
from hz.tick.agent_causes import NewCauses
from hz.turn import engine, history, waits
from hz.turn.caps import caps_now, decide
from hz.turn.causes import (
    Cause,
    Wake,
    coalesce,
    created_key,
)
from hz.turn.engine import Deps, TurnResult
from hz.turn.journal import Journal
from hz.turn.plan import Plan

if TYPE_CHECKING:
    from hz.tick.candidates import Candidate
    from hz.tick.dispositions import Disposition

MAX_FOLLOW_UPS = 5  # follow-up turns in one tick; more wait for the next tick's inbox check


@dataclass
class AgentWork(NewCauses):
    journal: Journal
    candidate: Candidate
    deps: Deps
    store: Store
    now: datetime
    team: Any = None  # hz.tick.team.Team when the repository coordinates team contracts
    disposition: Disposition | None = None  # a team contract's, once this share of the tick decided it

    def run(self) -> list[dict[str, Any]]:
        inbox = self._inbox()  # before the open turns: a message may be the answer one of them waits for
        entries = [e for ot in history.open_turns(self.journal.events()) if (e := self._open(ot)) is not None]
        causes = [*self.candidate.causes, *self._requested(), *inbox, *self._moved(), *self._stale()]
        lessons = self._approvals(entries)
        taken = history.settled_keys(self.journal.events()) | history.started_keys(self.journal.events())
        causes = [c for c in causes if c.key not in taken]
        if causes:
            entries.extend(self._wake(coalesce(self.plan.agent_id, causes)))
        for lesson in lessons:  # each its own turn: coalesced, the approval step ran only as a first cause
            if lesson.key not in taken:
                entries.extend(self._learn(lesson))
        return entries

    def new_causes(self) -> list[Cause]:
        """The wakes due now besides open turns, messages and approvals (what a busy agent is left)."""
        return [*self.candidate.causes, *self._moved(), *self._stale()]

    # --- open turns ---------------------------------------------------------------------------

    def _open(self, open_turn: history.OpenTurn) -> dict[str, Any] | None:
        plan = self._pinned(open_turn)
        if open_turn.waiting is None:
            return self._recover(open_turn, plan)
        wait = waits.Wait.from_event(
            open_turn.turn,
            history.parse_ts(open_turn.waiting.ts),
            open_turn.waiting.data,
            timedelta(days=self.deps.settings.max_wait_days),
        )
        fired = waits.woken_by(wait, self._world())
        if fired is None:
            return None
        if fired == "timer" and wait.on is not None and wait.on.get("kind") == "answer":
            # the question's time ran out: settled without an answer, so the agent no longer waits on it
            self.journal.append("question.answered", {"key": str(wait.on["key"])}, turn=open_turn.turn, key=None)
        if self._superseded(open_turn, wait):
            from hz.turn.finish import abandon

            return self.entry("resumed", abandon(self.journal, open_turn, plan, self.deps, reason="superseded"))
        open_turn = engine.reopen(self.journal, open_turn.turn, woken_by=fired, step=wait.step)
        return self.entry("resumed", engine.resume(self.journal, open_turn, plan, self.deps, counted=False))

    def _recover(self, open_turn: history.OpenTurn, plan: Plan) -> dict[str, Any] | None:
        """A turn a crash left open goes on at its checkpoint; a team turn only under its slot's lease.

        A holder killed mid-turn may come back after another member took the slot over: resuming then
        would run the slot a second time. So it claims the slot again first. Done elsewhere (or no longer
        ours): abandoned, nothing sent. Held by someone else: left open, claimed again next tick. Won (its
        own term renewed, or an expired one taken): resumed, and its receipts go out like a new turn's.
        """
        if open_turn.started.data.get("cause") == "approval":  # a lesson holds no lease: it just goes on
            return self.entry("resumed", engine.resume(self.journal, open_turn, plan, self.deps))
        claim = self._claim_at(engine.turn_slot(open_turn.started), key=_first_key(open_turn))
        if claim is not None and not claim.won:
            if claim.pending:
                said = self._said(claim, engine.turn_slot(open_turn.started))
                return {"agent": self.name, "action": "skipped", "reason": said, "turn": open_turn.turn}
            from hz.turn.finish import abandon

            reason = "ran-elsewhere" if claim.why == "ran-elsewhere" else "throttled"
            return self.entry("resumed", abandon(self.journal, open_turn, plan, self.deps, reason=reason))
        result = engine.resume(self.journal, open_turn, plan, self.deps)
        self._receipts(result, claim)
        return self.entry("resumed", result)

    def _pinned(self, open_turn: history.OpenTurn) -> Plan:
        version = int(open_turn.started.data.get("contract_version", self.plan.version))
        if version == self.plan.version:
            return self.plan
        from hz.turn.agents import load_plan

        return load_plan(self.journal.directory, self.candidate.row, version, root=self.plan.root)

    def _superseded(self, open_turn: history.OpenTurn, wait: waits.Wait) -> bool:
        return any(
            e.kind == "draft.placed" and e.turn != open_turn.turn and history.parse_ts(e.ts) >= wait.since
            for e in self.journal.events()
        )

    def _world(self) -> waits.World:
        events = self.journal.events()
        decided = {str(e.data["key"]) for e in events if e.kind == "approval.observed"}
        answered = {str(e.data["key"]) for e in events if e.kind == "question.answered"}
        return waits.World(self.now, self._fingerprints(), decided, answered)

    def _learn(self, cause: Cause) -> list[dict[str, Any]]:
        """An approval turn on its own: no lease (it learns on this machine and writes nothing for the team)."""
        wake = coalesce(self.plan.agent_id, [cause])
        if self._over_cap():
            engine.skip(self.journal, wake, "cap", moved=[], next_due=self.deps.next_due())
            return [{"agent": self.name, "action": "skipped", "reason": "cap", "cause": "approval"}]
        return [self.entry("started", engine.start(self.journal, self.plan, wake, self.deps))]

    # --- running one wake ---------------------------------------------------------------------

    def _wake(self, wake: Wake) -> list[dict[str, Any]]:
        due = self.deps.next_due()
        if (elsewhere := self._not_owner(wake, due)) is not None:
            return elsewhere
        if (over := self._over_cap()) is not None:
            self._dispose("capped", over)
            return self._cap_skip(wake, over, due)
        if wake.kinds() == {"schedule"} and self.plan.render_on_schedule == "if-moved":
            moved = self._moved_since_last(wake)
            if moved is not None and not moved:
                engine.skip(self.journal, wake, "nothing-moved", moved=[], next_due=due)
                self._dispose("nothing-moved")
                return [{"agent": self.name, "action": "skipped", "reason": "nothing-moved", "cause": "schedule"}]
        if (waiting := self._upstream_wait(wake)) is not None:
            return [waiting]
        claim = self._claim(wake)
        if claim is not None and not claim.won:
            if not claim.pending:  # the slot ran elsewhere, or is never ours: settled here (docs/decisions.md)
                reason = "ran-elsewhere" if claim.why == "ran-elsewhere" else "throttled"
                engine.skip(self.journal, wake, reason, moved=[], next_due=due)
            # a pending claim (early, held by another) settles nothing: the next tick claims it again
            said = self._said(claim, engine.wake_slot(wake, self.now))
            return [{"agent": self.name, "action": "skipped", "reason": said, "cause": wake.cause.kind}]
        entries: list[dict[str, Any]] = []
        result = engine.start(self.journal, self.plan, wake, self.deps)
        entries.append(self.entry("started", result))
        self._dispose("ran", result.disposition, slot=engine.wake_slot(wake, self.now))
        self._receipts(result, claim)
        for _ in range(MAX_FOLLOW_UPS):
            if not result.follow_up:
                break
            result = engine.start(self.journal, self.plan, coalesce(self.plan.agent_id, result.follow_up), self.deps)
            entries.append(self.entry("started", result))
            self._receipts(result, claim)
        return entries

    def claim_again(self, open_turn: history.OpenTurn) -> Any:
        """The lease of an open turn's own slot, for a person's `hz heinzel resume` (None: no team)."""
        return self._claim_at(engine.turn_slot(open_turn.started), asked=True, key=_first_key(open_turn))

    def said(self, claim: Any, open_turn: history.OpenTurn) -> str:
        """Why a claim of an open turn's slot was not won, noted as the disposition (see `_said`)."""
        return self._said(claim, engine.turn_slot(open_turn.started))

    def receipts(self, result: TurnResult, claim: Any) -> None:
        """Queue a team turn's receipts for the push (see `_receipts`)."""
        self._receipts(result, claim)

    def _upstream_wait(self, wake: Wake) -> dict[str, Any] | None:
        """A required `contract:` input whose upstream has nothing approved on main yet: the wake waits,
        settling nothing and spending nothing (no lease, no turn, no model call), and the next tick looks
        again; once a member merges the upstream's draft, the same wake runs. Its gather is cached for
        the turn that then runs (`make_deps`), so looking costs one read of the fetched main."""
        if not any(str(uri).startswith("contract:") for uri in self._sources()):
            return None
        from hz.sources.base import SourceError

        slot = engine.wake_slot(wake, self.now)
        try:
            self.deps.gather(self.plan, slot)
        except SourceError as exc:
            if exc.waiting_for is None:
                return None  # another failure: the turn's gather step records it
            from hz.tick.dispositions import waiting
            from hz.tick.team import lease_id

            self.disposition = waiting(self._contract_name(), lease_id(self.plan), exc.waiting_for, exc.message, slot)
            reason = f"waiting for an approved {exc.waiting_for}"
            return {"agent": self.name, "action": "skipped", "reason": reason, "cause": wake.cause.kind}
        except HzError:
            return None
        return None

    def _sources(self) -> list[str]:
        from hz.sources.watch import specs_of

        inputs = getattr(self.plan.contract.frontmatter.hz, "inputs", None) or {}
        return [str(spec.uri) for name in inputs for spec in specs_of(inputs[name])]

    def _said(self, claim: Any, slot: datetime) -> str:
        """A claim not won, noted as this contract's disposition; the reason the tick's line gives."""
        from hz.tick.dispositions import from_claim

        self.disposition = from_claim(self._contract_name(), claim, slot)
        return self.disposition.reason if self.disposition.state in ("held", "early") else str(claim.why)

    def _dispose(self, state: str, detail: Any = None, slot: datetime | None = None) -> None:
        """Note a team contract's disposition (hz.tick.dispositions); nothing for a personal contract."""
        if self.plan.scope != "team":
            return
        from hz.spend import money
        from hz.tick import dispositions
        from hz.tick.team import lease_id

        name, lease = self._contract_name(), lease_id(self.plan)
        if state == "capped":
            self.disposition = dispositions.capped(name, lease, money.cap_text(detail))
        elif state == "nothing-moved":
            self.disposition = dispositions.nothing_moved(name, lease)
        elif state == "ran":
            self.disposition = dispositions.ran(name, lease, slot, str(detail))

    def _contract_name(self) -> str:
        return str(self.candidate.row.get("contract_name") or self.plan.name)

    def _not_owner(self, wake: Wake, due: datetime | None) -> list[dict[str, Any]] | None:
        """Without `[state]` (no team here) a team contract runs on its owner's machine alone: elsewhere the
        wake is one `not-owner` skip, said once per agent (hz.tick.owner_only). None: it runs here."""
        if self.team is not None or self.plan.scope != "team":
            return None
        from hz.tick import owner_only

        handle = owner_only.my_handle(self.deps.environ)
        if owner_only.runs_here(self.plan, handle):
            return None
        said = owner_only.told(self.journal.events())
        engine.skip(self.journal, wake, owner_only.NOT_OWNER, moved=[], next_due=due)
        return [] if said else [owner_only.notice(self.name, self.plan, handle)]

    def _claim(self, wake: Wake) -> Any:
        """For a team contract under team coordination: the lease for this wake's slot (None otherwise).
        A wake a person asked for (wake, chat, retry) waits for no owner's grace period."""
        asked = wake.kinds() <= {"asked", "retry"}
        return self._claim_at(engine.wake_slot(wake, self.now), asked=asked, key=wake.key)

    def _claim_at(self, slot: datetime, *, asked: bool = False, key: str | None = None) -> Any:
        """The lease of `slot`; `key` is the wake's own (its receipts' key): a `source-changed` wake's names
        the moved input and its fingerprint, the same on every member, where its slot is the tick's minute,
        so the turn ran elsewhere when that key ended on `hz/state` (one downstream run per approval)."""
        if self.team is None or self.plan.scope != "team":
            return None
        from hz.tick.team_claim import claim

        return claim(self.team, self.plan, slot, self.now, asked=asked, key=key)

    def _receipts(self, result: TurnResult, claim: Any) -> None:
        if claim is not None and claim.won:
            from hz.tick.team_push import record

            record(self.team, self.journal.events(), result.turn, claim)

    def _moved_since_last(self, wake: Wake) -> list[str] | None:
        last = self._last_inputs(drafted=True)  # whatever turns came since (an approval's, a skip's)
        if last is None:
            return None  # never rendered: render now
        try:
            current = self.deps.gather(self.plan, engine.wake_slot(wake, self.now)).fingerprints
        except HzError:
            return None  # render: the turn's gather step records the failure
        return sorted(n for n, fp in current.items() if last.get(n) != fp)

    def _over_cap(self) -> dict[str, Any] | None:
        """The cap this wake's worst case would cross (the cheap check; the ledger decides each request)."""
        caps = caps_now(self.plan, self.deps, self.journal.events(), None)
        decision = decide(caps, self.deps.runner.worst_case_usd(self.plan.max_tokens))
        return None if decision.allowed else decision.detail()

    def _cap_skip(self, wake: Wake, cap: dict[str, Any], due: datetime | None) -> list[dict[str, Any]]:
        """Skipped for a cap. Its keys are settled, save `created`: an agent's first turn runs once the cap
        allows (its output should exist), so that key stays open and the skip is written once a UTC day."""
        keys = [k for k in wake.keys if k != created_key(self.plan.agent_id)]
        entry = {"agent": self.name, "action": "skipped", "reason": "cap", "cause": wake.cause.kind, "cap": cap}
        if keys or not self._told_today(wake):
            causes = [c.kind for c in wake.causes]
            data: dict[str, Any] = {"causes": causes, "keys": keys, "reason": "cap", "moved": [], "cap": cap}
            if due is not None:
                data["next_due"] = due.isoformat()
            self.journal.append("turn.skipped", data, turn=None, key=keys[0] if keys else None)
        return [entry]

    def _told_today(self, wake: Wake) -> bool:
        day = self.now.strftime("%Y-%m-%d")
        causes = [c.kind for c in wake.causes]
        return any(
            e.kind == "turn.skipped" and e.data.get("reason") == "cap" and e.data.get("causes") == causes
            and not e.data.get("keys") and e.ts[:10] == day
            for e in self.journal.events()
        )  # fmt: skip

    def entry(self, action: str, result: TurnResult) -> dict[str, Any]:
        entry: dict[str, Any] = {"agent": self.name, "action": action, "turn": result.turn}
        entry.update(disposition=result.disposition, usd=result.usd)
        if result.reason:
            entry["reason"] = result.reason
        if result.error and result.disposition == "failed":
            entry["error"] = result.error
        if result.cap is not None:
            entry["cap"] = dict(result.cap)
        if result.flags:
            entry["flags"] = list(result.flags)
        return entry


def _first_key(open_turn: history.OpenTurn) -> str | None:
    """The key an open turn's receipts go under: its first cause's."""
    keys = open_turn.started.data.get("keys") or []
    return str(keys[0]) if keys else None
