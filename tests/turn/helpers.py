"""Shared set-up for turn tests: a real spine in a private HZ_HOME and a plan drafting into a tmp tree."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.canonical import fingerprint
from hz.config import HeinzelSettings
from hz.runners.base import Runner
from hz.runners.offline import OfflineRunner
from hz.turn.engine import Deps, Gathered
from hz.turn.journal import Journal
from hz.turn.plan import Plan

AGENT = "hz-01JC0000000000000000000000"
FRIDAY = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)


def plan(root: Path, **kw: Any) -> Plan:
    base: dict[str, Any] = {
        "agent_id": AGENT,
        "name": "weekly-report",
        "version": 1,
        "fingerprint": fingerprint({"v": 1}),
        "body": "### Goal\n\nThe weekly report is current.\n",
        "outputs": {"report": ("summary", "risks")},
        "targets": {"report": "file:reports/{slot:%G-W%V}.md"},
        "inputs": ("tracker",),
        "root": root,
    }
    base.update(kw)
    return Plan(**base)


def gather_from(values: Mapping[str, Mapping[str, Any]]) -> Any:
    def gather(_plan: Plan, _slot: datetime) -> Gathered:
        return Gathered(values, {name: fingerprint(facets) for name, facets in values.items()})

    return gather


class Clock:
    def __init__(self, start: datetime = FRIDAY) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw: float) -> None:
        self.now += timedelta(**kw)


def deps(
    clock: Clock, values: Mapping[str, Mapping[str, Any]] | None = None, runner: Runner | None = None, **kw: Any
) -> Deps:
    settings = kw.pop("settings", HeinzelSettings())
    return Deps(
        runner=runner or OfflineRunner(),
        settings=settings,
        environ=kw.pop("environ", {}),
        clock=clock,
        gather=gather_from(values or {"tracker": {"issues": [{"title": "ship it", "url": "https://x.test/1"}]}}),
        **kw,
    )


def agent_dir(home: Path) -> Path:
    path = home / "heinzel" / AGENT
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def journal(home: Path, clock: Clock) -> Journal:
    return Journal.open(agent_dir(home), clock=clock, timeout=2.0)
