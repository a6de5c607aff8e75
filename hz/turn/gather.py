"""The gather step's reach into the world: this wake's inputs from the source cache, and the runner.

Inputs come from `hz.sources` (fetched once per source when its recheck is due, staged in the source
cache before anyone wakes, fingerprinted per facet); a turn reads them back by slot, so a crash between
fetch and wake never fetches again.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from hz.runners.base import Runner
from hz.turn.engine import Gathered
from hz.turn.plan import Plan


def pick_runner(plan: Plan, environ: Mapping[str, str]) -> Runner:
    from hz.runners.registry import runner_for

    return runner_for(plan.runner, environ, model=plan.model)


def gather_inputs(
    plan: Plan, slot: datetime, *, environ: Mapping[str, str], now: datetime, fresh: bool = False
) -> Gathered:
    if not plan.inputs:
        return Gathered({}, {})
    from hz.sources.gather import gather_for_turn

    values, fingerprints = gather_for_turn(
        plan.contract, slot=slot, root=plan.root, environ=environ, now=now, fresh=fresh
    )
    return Gathered(values, fingerprints)
