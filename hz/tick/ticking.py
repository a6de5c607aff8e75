"""The working half of a tick: turn what the index says is due into wakes, order them, run them.

Per agent with something to do, under its spine's lock: first the turns a crash or a wait left open
(resumed at their checkpoint, or abandoned), then the new causes not yet settled, coalesced into one
wake. A schedule-only wake of an `if-moved` contract whose inputs did not move is one `turn.skipped`
line and no model call; a wake whose worst case would cross a cap is skipped with reason `cap`. Wakes
run in graph-height order, then oldest due first, at most `max_wakes_per_tick`; the rest stay due.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from hz.config import HeinzelSettings, load_user_config
from hz.errors import HzError, LockTimeout
from hz.session.frozen import FrozenSpine, frozen_entry
from hz.session.store import Store
from hz.tick.asked import unmark
from hz.tick.report import Pending, TickReport
from hz.turn import history
from hz.turn.causes import Cause, approval_key, coalesce, created_key, schedule_key, source_changed_key
from hz.turn.clock import running_from
from hz.turn.engine import Deps, Gathered
from hz.turn.journal import Journal
from hz.turn.plan import Plan


@dataclass
class Candidate:
    agent_id: str
    row: dict[str, Any]
    plan: Plan
    causes: list[Cause] = field(default_factory=list)
    has_open: bool = False
    height: int = 0
    asked: tuple[str, ...] = ()  # request ids a marker names: inbox messages no spine took in yet

    @property
    def due(self) -> str:
        """Oldest due first: the earliest cause, else the index's next due slot."""
        if self.causes:
            return min(c.due for c in self.causes).isoformat()
        return str(self.row.get("next_due") or "9999")


def run_tick(
    store: Store,
    work: Pending,
    *,
    root: Path | None,
    environ: Mapping[str, str],
    now: datetime,
    runner: Any,
    tools: tuple[Any, ...] = (),
    fetched: Any = None,
) -> TickReport:
    """`fetched`: the tick's one fetch of the team remote (hz.tick.team.for_tick); None: not made yet,
    False: it failed (said already), and team slots wait."""
    from hz.heinzel.repository import here_of

    here_of(root, environ, fresh=True)  # whose agents these are: read once per tick, when first asked
    config = load_user_config(environ)
    settings = config.heinzel
    report = TickReport(now)
    default_tz = config.timezone or "UTC"
    discovered = _discover(store, work, report, root=root, now=now, default_tz=default_tz)
    candidates = _candidates(store, work, report, root=root, now=now, default_tz=default_tz, discovered=discovered)
    _apply_heights(candidates, root, environ)
    candidates.sort(key=lambda c: (c.height, c.due, c.agent_id))
    team = _team(root, environ, config.handle, report, fetched)
    if team is None and _coordinated(root):  # never run a team slot unleased where leases are the rule
        report.team.extend(_unreached(c) for c in candidates if c.plan.scope == "team")
        candidates = [c for c in candidates if c.plan.scope != "team"]
    budget = settings.max_wakes_per_tick
    clock = running_from(now)  # events are stamped when they happen, from the tick's moment on
    for candidate in candidates:
        if budget <= 0:
            report.deferred.append(candidate.row["name"])
            continue
        try:
            entries, disposition = _work_agent(
                store, candidate, settings, environ=environ, now=now, runner=runner, tools=tools, team=team, clock=clock
            )
            if disposition is not None:
                report.team.append(disposition.to_json())
        except LockTimeout:  # awake elsewhere: its wakes wait in its inbox for that turn to take them in
            from hz.tick.busy import queue_wakes

            queued = queue_wakes(store, candidate, settings, environ=environ, now=now, runner=runner)
            if queued:
                report.woken.append({"agent": candidate.row["name"], "action": "queued", "causes": queued})
            else:
                report.busy.append(candidate.row["name"])
            continue
        except FrozenSpine as exc:  # found by the turn's own read: nothing was appended or spent
            entries = [frozen_entry(candidate.row["name"], exc.problem)]
        except HzError as exc:  # one agent's trouble never stops the others
            entries = [{"agent": candidate.row["name"], "action": "error", "error": exc.message}]
        report.woken.extend(entries)
        budget -= sum(1 for e in entries if e["action"] in {"started", "resumed"})
    if team is not None:
        from hz.tick.team_push import flush

        _carry_waiting_drafts(store, team)
        pushed = flush(team, now)
        report.pushed = bool(pushed["pushed"])
        for lease in pushed.get("fenced", ()):
            _forget_fenced(store, team, lease, report, now)
            report.woken.append(_fenced(lease, pushed.get("withheld", {})))
        if "error" in pushed:
            report.woken.append({"agent": "hz/state", "action": "error", "error": pushed["error"]})
        for ref, why in sorted(pushed.get("unpublished", {}).items()):
            error = f"the remote refused the draft branch {ref.removeprefix('refs/heads/')}: {why}"
            report.woken.append({"agent": "hz/state", "action": "error", "error": error})
        for why in sorted(pushed.get("clashed", {}).values()):
            report.woken.append({"agent": "hz/state", "action": "error", "error": f"not written: {why}"})
        for why in pushed.get("pulls_failed", ()):  # the branch is on the remote; the next tick asks again
            report.woken.append({"agent": "forge", "action": "error", "error": why})
        report.woken.extend(pushed.get("auto_published", ()))  # publishes a policy let run before the review
    return report


def _forget_fenced(store: Store, team: Any, lease: str, report: TickReport, now: datetime) -> None:
    """A fenced turn placed nothing for the team: the tick says `fenced` once (not `started -> drafted`
    too), and this machine's record of its draft is decided here, so no pending draft that no other
    member can see is left behind (`hz drafts`, `hz heinzel show`)."""
    from hz.gitstate.layout import STATE_REF
    from hz.gitstate.objects import resolve
    from hz.review import approvals
    from hz.review.approval_state import StateBook

    plan = team.plans.get(lease)
    if plan is None:
        return
    report.woken[:] = [
        e for e in report.woken if not (e.get("agent") == plan.name and e["action"] in ("started", "resumed"))
    ]
    book = StateBook(team.remote.repo, resolve(team.remote.repo, team.remote.tracking(STATE_REF)))
    with store.writer(plan.agent_id, now=now) as writer:
        journal = Journal(writer, lambda: now)
        for event in approvals.undecided(journal.events()):
            key = str(event.data["key"])
            if not book.has("draft.placed", lease, f"{lease}@{key.split('@', 1)[1]}"):
                approvals.record_rejection(journal, key, approver=None)


def push_team(store: Store, team: Any, now: datetime) -> tuple[list[dict[str, Any]], bool]:
    """The tick's one push (hz.tick.team_push.flush), the waiting drafts carried along: what it reports, and
    whether it pushed. Shared with the turns a person starts (hz.tick.direct), which push the same way."""
    from hz.tick.team_push import flush

    _carry_waiting_drafts(store, team)
    pushed = flush(team, now)
    said: list[dict[str, Any]] = [_fenced(lease, pushed.get("withheld", {})) for lease in pushed.get("fenced", ())]
    if "error" in pushed:
        said.append({"agent": "hz/state", "action": "error", "error": pushed["error"]})
    for ref, why in sorted(pushed.get("unpublished", {}).items()):
        error = f"the remote refused the draft branch {ref.removeprefix('refs/heads/')}: {why}"
        said.append({"agent": "hz/state", "action": "error", "error": error})
    for why in sorted(pushed.get("clashed", {}).values()):
        said.append({"agent": "hz/state", "action": "error", "error": f"not written: {why}"})
    for why in pushed.get("pulls_failed", ()):  # the branch is on the remote; the next tick asks again
        said.append({"agent": "forge", "action": "error", "error": why})
    said.extend(pushed.get("auto_published", ()))  # publishes a policy let run before the review
    return said, bool(pushed["pushed"])


def _unreached(candidate: Candidate) -> dict[str, Any]:
    from hz.tick.dispositions import unreached
    from hz.tick.team import lease_id

    name = str(candidate.row.get("contract_name") or candidate.plan.name)
    return unreached(name, lease_id(candidate.plan)).to_json()


def _fenced(lease: str, withheld: Mapping[str, str]) -> dict[str, Any]:
    """A lease taken over before our push: its receipts were dropped and its draft branches withheld."""
    branches = [ref.removeprefix("refs/heads/") for ref, held in withheld.items() if held == lease]
    placed = f"; its draft branch {', '.join(branches)} was not pushed" if branches else ""
    return {"agent": lease, "action": "fenced", "reason": f"the lease was taken over{placed}"}


def _carry_waiting_drafts(store: Store, team: Any) -> None:
    """Draft branches of the turns whose receipts still wait in the outbox ride in this tick's push.

    A push that failed left both behind; the receipts go out with the next tick (even an idle one), and
    their branches with them, as in the push that failed, rather than with the agent's next team turn
    (a week later for a weekly contract). Each branch is tied to the lease and token of its receipts, so
    the writer pushes it only with a renewal of that lease term, and withholds it with the receipts when
    the lease was taken over: a holder that lost its lease places nothing.
    """
    if not team.writer.outbox.waiting():
        return
    from hz.tick.team_drafts import tie, unpublished_drafts

    terms = {str(e.data["turn"]): (e.lease, e.token) for e in team.writer.outbox.events() if e.kind == "draft.placed"}
    if not terms:
        return
    marks = ",".join("?" * len(terms))
    query = f"SELECT DISTINCT agent FROM turns WHERE turn IN ({marks})"  # only placeholders are formatted in
    for (agent,) in store.index.db.execute(query, sorted(terms)).fetchall():
        for event in store.read(str(agent)).events:
            if event.kind == "draft.placed" and event.turn in terms:
                team.drafts.update(tie(unpublished_drafts(team, [event]), *terms[event.turn], team))


def _coordinated(root: Path | None) -> bool:
    from hz.tick.team import configured

    return configured(root)


def _team(
    root: Path | None, environ: Mapping[str, str], handle: str | None, report: TickReport, fetched: Any = None
) -> Any:
    from hz.tick.team import Team, configured

    if root is None or not configured(root) or fetched is False:
        return None
    try:
        return Team.open(root, environ, handle, fetched)
    except HzError as exc:
        report.woken.append({"agent": "hz/state", "action": "error", "error": exc.message})
        return None


def _discover(
    store: Store, work: Pending, report: TickReport, *, root: Path | None, now: datetime, default_tz: str
) -> dict[str, list[Cause]]:
    """Today's discovery pass when it is due: new `discovered` causes by agent, playbook problems reported."""
    if not work.discover or root is None:
        return {}
    from hz.tick.discover import discovery_pass

    found = discovery_pass(store, root, now, default_tz=default_tz)
    report.woken.extend({"agent": "discovery", "action": "error", "error": error} for error in found.errors)
    return found.causes


def _candidates(
    store: Store,
    work: Pending,
    report: TickReport,
    *,
    root: Path | None,
    now: datetime,
    default_tz: str,
    discovered: Mapping[str, list[Cause]] | None = None,
) -> list[Candidate]:
    from hz.turn.agents import load_plan

    discovered = discovered or {}
    ids: dict[str, None] = {}
    for rows in (work.running, work.waits, work.due, work.drafts, work.watched, work.fresh, work.asked):
        for row in rows:
            ids.setdefault(str(row.get("agent") or row.get("id")), None)
    ids.update(dict.fromkeys(discovered))
    asked: dict[str, list[str]] = {}
    for marker in work.asked:
        asked.setdefault(marker["agent"], []).append(marker["request_id"])
    due_ids = {str(r["id"]) for r in work.due}
    fresh_ids = {str(r["id"]) for r in work.fresh}
    found: list[Candidate] = []
    for agent_id in ids:
        found_row = store.index.agent(agent_id)
        if found_row is None or found_row["state"] == "retired":  # nobody will ever take these messages
            unmark(store.root, agent_id, asked.get(agent_id, ()))
            continue
        row = found_row
        if not _placed_here(store, row, root, now):
            continue
        if row["state"] in {"proposed", "paused"} or not row.get("contract_version"):
            continue
        spine = store.index.spine_state(agent_id)
        if spine is not None and spine["problem"]:  # no wake on a history with a hole (hz.session.frozen)
            if (problem := store.index.recheck(agent_id)) is not None:
                report.woken.append(frozen_entry(row["name"], problem))
            continue  # a line restored by hand: whole again, it wakes from the next tick on its new rows
        try:
            plan = load_plan(
                store.agent_dir(agent_id), row, int(row["contract_version"]), root=root, default_tz=default_tz
            )
        except HzError as exc:
            report.woken.append({"agent": row["name"], "action": "error", "error": exc.message})
            continue
        candidate = Candidate(agent_id, row, plan, has_open=True, asked=tuple(asked.get(agent_id, ())))
        if agent_id in due_ids:
            candidate.causes.extend(_schedule_causes(plan, row, now))
        if agent_id in fresh_ids:
            candidate.causes.append(_created(plan, now))
            if agent_id not in due_ids and plan.scope == "team" and _coordinated(root):
                candidate.causes.extend(_missed_slot(plan, now))
        candidate.causes.extend(discovered.get(agent_id, ()))
        found.append(candidate)
    return found


def belongs_here(row: Mapping[str, Any], root: Path | None) -> bool:
    """An agent adopted from a repository runs only in a tick of that repository: the one whose root
    commit it recorded (`hz.heinzel.repository`), never another that holds a file at the same path."""
    from hz.heinzel.repository import belongs, here_of

    return belongs(row, here_of(root)) is True


def _placed_here(store: Store, row: Mapping[str, Any], root: Path | None, now: datetime) -> bool:
    """`belongs_here`, binding an agent adopted before identities (or before the first commit) at home."""
    from hz.heinzel.rebind import place
    from hz.heinzel.repository import adopted, here_of

    return not adopted(row) or place(store, row, here_of(root), now=now)


def _schedule_causes(plan: Plan, row: Mapping[str, Any], now: datetime) -> list[Cause]:
    from hz.schedule import slots_to_run

    if not plan.schedule or not row.get("next_due"):
        return []
    since = history.parse_ts(str(row["next_due"])) - timedelta(microseconds=1)
    policy: Any = plan.catch_up
    slots = slots_to_run(plan.schedule, since=since, now=now, policy=policy, limit=1)
    return [Cause("schedule", schedule_key(plan.agent_id, slot), slot, {"slot": slot.isoformat()}) for slot in slots]


def _missed_slot(plan: Plan, now: datetime) -> list[Cause]:
    """A team agent adopted after its latest slot (an Actions run adopts at every start): that slot, if the
    contract's catch-up rules still run it. Its lease decides the rest: early within the grace period for a
    delegate or an Actions run, ran-elsewhere when its end is on `hz/state`, else ours to run. A `created`
    cause alone never gets there: its slot is the minute of the tick, always within the grace period.
    """
    from hz.schedule import latest_slot, slots_to_run

    latest = latest_slot(plan.schedule, now) if plan.schedule else None
    if latest is None:
        return []
    since = latest - timedelta(microseconds=1)
    slots = slots_to_run(plan.schedule, since=since, now=now, policy=plan.catch_up, limit=1)  # type: ignore[arg-type]
    return [Cause("schedule", schedule_key(plan.agent_id, slot), slot, {"slot": slot.isoformat()}) for slot in slots]


def _created(plan: Plan, now: datetime) -> Cause:
    """The first turn of a newly approved agent drafts as of now, so its output exists from day one."""
    slot = now.replace(second=0, microsecond=0)
    return Cause("created", created_key(plan.agent_id), now, {"slot": slot.isoformat()})


def next_due(plan: Plan, after: datetime) -> datetime | None:
    from hz.schedule import next_slot

    return next_slot(plan.schedule, after) if plan.schedule else None


def _earliest(slot: datetime | None, valid_until: datetime | None, now: datetime) -> datetime | None:
    """The next due time: the next schedule slot, or sooner when the approved output expires first."""
    if valid_until is not None and valid_until > now and (slot is None or valid_until < slot):
        return valid_until
    return slot


def _apply_heights(candidates: list[Candidate], root: Path | None, environ: Mapping[str, str]) -> None:
    """Graph height of each candidate's contract, from the compiled repository when there is one."""
    if root is None or len(candidates) < 2:
        return
    try:
        from hz.contract.project import compile_repository

        compiled = compile_repository(root, environ)
    except (ImportError, HzError):
        return
    heights = {
        str(getattr(c, "name", "")): int(getattr(c, "height", 0) or 0) for c in getattr(compiled, "contracts", ())
    }
    for candidate in candidates:
        candidate.height = heights.get(str(candidate.row.get("contract_name") or candidate.row["name"]), 0)


def _work_agent(
    store: Store,
    candidate: Candidate,
    settings: HeinzelSettings,
    *,
    environ: Mapping[str, str],
    now: datetime,
    runner: Any,
    tools: tuple[Any, ...],
    team: Any = None,
    clock: Callable[[], datetime] | None = None,
) -> tuple[list[dict[str, Any]], Any]:
    """What the agent's share of the tick did, and its disposition (hz.tick.dispositions) when it is a
    team contract under team coordination."""
    from hz.tick.agentwork import AgentWork

    clock = clock or running_from(now)
    with store.writer(candidate.agent_id, timeout=0.2, now=clock()) as writer:
        journal = Journal(writer, clock)
        deps = make_deps(
            store, candidate.plan, settings, environ=environ, now=now, runner=runner, tools=tools, clock=clock
        )
        work = AgentWork(journal, candidate, deps, store=store, now=now, team=team)
        deps.next_due = lambda: _earliest(next_due(candidate.plan, now), work.valid_until(), now)
        entries = work.run()
    unmark(store.root, candidate.agent_id, candidate.asked)  # each one started, settled or answered
    return entries, _disposition(work, candidate, team)


def _disposition(work: Any, candidate: Candidate, team: Any) -> Any:
    """The team contract's disposition; one that no wake decided had nothing due."""
    if team is None or candidate.plan.scope != "team":
        return None
    if work.disposition is not None:
        return work.disposition
    from hz.tick.dispositions import not_due
    from hz.tick.team import lease_id

    name = str(candidate.row.get("contract_name") or candidate.plan.name)
    return not_due(name, lease_id(candidate.plan), candidate.row.get("next_due"))


def make_deps(
    store: Store,
    plan: Plan,
    settings: HeinzelSettings,
    *,
    environ: Mapping[str, str],
    now: datetime,
    runner: Any,
    tools: tuple[Any, ...] = (),
    clock: Callable[[], datetime] | None = None,
) -> Deps:
    from hz.spend.day import ledger_day
    from hz.spend.gate import ledger_of
    from hz.turn.gather import gather_inputs

    day = ledger_day()  # the wall clock's: `now` may be a pinned `--now`, which moves the schedule only
    ledger = ledger_of(store)
    cache: dict[tuple[str, datetime], Gathered] = {}

    def gather(p: Plan, slot: datetime) -> Gathered:
        if (p.agent_id, slot) not in cache:
            cache[(p.agent_id, slot)] = gather_inputs(p, slot, environ=environ, now=now)
        return cache[(p.agent_id, slot)]

    return Deps(
        runner=runner or _runner(plan, environ),
        settings=settings,
        environ=environ,
        clock=clock or running_from(now),
        gather=gather,
        spent_today=lambda: ledger.day_total(day),  # the ledger decides; the index only records
        next_due=lambda: next_due(plan, now),
        tools=tools,
        ledger=ledger,
    )


def _runner(plan: Plan, environ: Mapping[str, str]) -> Any:
    """The contract's runner; one that cannot be set up fails this agent's turn, never the tick."""
    from hz.runners.base import RunnerError
    from hz.turn.gather import pick_runner

    try:
        return pick_runner(plan, environ)
    except RunnerError as exc:
        return Unconfigured(exc)


class Unconfigured:
    """Stands in for a runner that could not be set up (no key, unknown name): its turn fails with why."""

    name = "unconfigured"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def worst_case_usd(self, max_tokens: int) -> float:
        return 0.0  # it never calls a model, so no cap stops it before it can say what is wrong

    def think(self, request: Any) -> Any:
        raise self.error


__all__ = ["Candidate", "approval_key", "coalesce", "next_due", "run_tick", "source_changed_key"]
