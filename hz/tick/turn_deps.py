"""The dependencies of a tick's turns (hz.turn.engine.Deps): the contract's runner, one that cannot be set up
standing in as `Unconfigured`; gathering cached per agent and slot; the day's spend from the ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from hz.config import HeinzelSettings
from hz.session.store import Store
from hz.tick.candidates import next_due
from hz.turn.clock import running_from
from hz.turn.engine import Deps, Gathered
from hz.turn.plan import Plan


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
