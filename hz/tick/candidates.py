"""What a tick finds due: the agents the index's pending work names, each loaded with its plan and the causes
that wake it now (schedule slots, a first turn, a missed team slot, discovery), as `Candidate`s; and the
graph height they run in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.session.frozen import frozen_entry
from hz.session.store import Store
from hz.tick.asked import unmark
from hz.tick.report import Pending, TickReport
from hz.tick.team_side import coordinated
from hz.turn import history
from hz.turn.causes import Cause, created_key, schedule_key
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


def discovered_causes(
    store: Store, work: Pending, report: TickReport, *, root: Path | None, now: datetime, default_tz: str
) -> dict[str, list[Cause]]:
    """Today's discovery pass when it is due: new `discovered` causes by agent, playbook problems reported."""
    if not work.discover or root is None:
        return {}
    from hz.tick.discover import discovery_pass

    found = discovery_pass(store, root, now, default_tz=default_tz)
    report.woken.extend({"agent": "discovery", "action": "error", "error": error} for error in found.errors)
    return found.causes


def due_candidates(
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
            if agent_id not in due_ids and plan.scope == "team" and coordinated(root):
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


def apply_heights(candidates: list[Candidate], root: Path | None, environ: Mapping[str, str]) -> None:
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
