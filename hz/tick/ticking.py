"""The working half of a tick: turn what the index says is due into wakes, order them, run them.

Per agent with something to do, under its spine's lock: first the turns a crash or a wait left open
(resumed at their checkpoint, or abandoned), then the new causes not yet settled, coalesced into one
wake. A schedule-only wake of an `if-moved` contract whose inputs did not move is one `turn.skipped`
line and no model call; a wake whose worst case would cross a cap is skipped with reason `cap`. Wakes
run in graph-height order, then oldest due first, at most `max_wakes_per_tick`; the rest stay due.

What is due is found by hz.tick.candidates, the team side (its team, its one push) is hz.tick.team_side,
and the turns' dependencies are built by hz.tick.turn_deps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.config import HeinzelSettings, load_user_config
from hz.errors import HzError, LockTimeout
from hz.session.batch import durable_once
from hz.session.frozen import FrozenSpine, frozen_entry
from hz.session.store import Store
from hz.tick.asked import unmark
from hz.tick.candidates import Candidate, apply_heights, discovered_causes, due_candidates, next_due
from hz.tick.report import Pending, TickReport
from hz.tick.team_side import carry_waiting_drafts, coordinated, fenced_entry, forget_fenced, open_team, unreached_entry
from hz.tick.turn_deps import make_deps
from hz.turn.causes import approval_key, coalesce, source_changed_key
from hz.turn.clock import running_from
from hz.turn.journal import Journal


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
    discovered = discovered_causes(store, work, report, root=root, now=now, default_tz=default_tz)
    candidates = due_candidates(store, work, report, root=root, now=now, default_tz=default_tz, discovered=discovered)
    apply_heights(candidates, root, environ)
    candidates.sort(key=lambda c: (c.height, c.due, c.agent_id))
    team = open_team(root, environ, config.handle, report, fetched)
    if team is None and coordinated(root):  # never run a team slot unleased where leases are the rule
        report.team.extend(unreached_entry(c) for c in candidates if c.plan.scope == "team")
        candidates = [c for c in candidates if c.plan.scope != "team"]
    if team is not None:  # every lease this tick's turns need, in one push before any of them spends
        from hz.tick.team_batch import claim_due

        if team.remote.tips_only:  # an Actions run's clone has no lease yet: the due contracts' alone
            from hz.review.sync import bring_leases
            from hz.tick.team_due import due_leases

            bring_leases(team.remote, due_leases(team, candidates, now))
        running = {str(row["agent"]) for row in store.index.running_turns()}
        claim_due(team, candidates, settings.max_wakes_per_tick, now, running)
    clock = running_from(now)  # events are stamped when they happen, from the tick's moment on
    with durable_once():  # the turns' lines and bodies flushed together, before the push and the report
        _run_candidates(
            store, candidates, settings, report, team, environ=environ, now=now, runner=runner, tools=tools, clock=clock
        )
    if team is not None:
        from hz.tick.team_push import flush

        carry_waiting_drafts(store, team)
        pushed = flush(team, now)
        report.pushed = bool(pushed["pushed"])
        for lease in pushed.get("fenced", ()):
            forget_fenced(store, team, lease, report, now)
            report.woken.append(fenced_entry(lease, pushed.get("withheld", {})))
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


def _run_candidates(
    store: Store,
    candidates: list[Candidate],
    settings: HeinzelSettings,
    report: TickReport,
    team: Any,
    *,
    environ: Mapping[str, str],
    now: datetime,
    runner: Any,
    tools: tuple[Any, ...],
    clock: Callable[[], datetime],
) -> None:
    """Run the candidates' wakes in order, up to the tick's budget of wakes; the rest are deferred."""
    budget = settings.max_wakes_per_tick
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


def _earliest(slot: datetime | None, valid_until: datetime | None, now: datetime) -> datetime | None:
    """The next due time: the next schedule slot, or sooner when the approved output expires first."""
    if valid_until is not None and valid_until > now and (slot is None or valid_until < slot):
        return valid_until
    return slot


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


__all__ = ["Candidate", "approval_key", "coalesce", "next_due", "run_tick", "source_changed_key"]
