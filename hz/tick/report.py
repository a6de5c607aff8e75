"""What a tick reports (`TickReport`) and what the idle path asks the index (`Pending`).

Plain classes and a NamedTuple, no dataclasses: a fresh idle tick imports this and would pay for `inspect`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple


class TickReport:
    """What one tick did. A plain class: `dataclasses` imports `inspect`, which a fresh idle tick pays."""

    __slots__ = ("busy", "deferred", "now", "pushed", "team", "woken")

    def __init__(
        self,
        now: datetime,
        woken: list[dict[str, Any]] | None = None,
        deferred: list[str] | None = None,
        busy: list[str] | None = None,
        pushed: bool = False,
    ) -> None:
        self.now = now
        self.woken = woken if woken is not None else []  # one entry per turn run, resumed or skipped
        self.deferred = deferred if deferred is not None else []  # left for the next tick (max_wakes_per_tick)
        self.busy = busy if busy is not None else []  # agents another process holds
        self.pushed = pushed
        self.team: list[dict[str, Any]] = []  # per team contract looked at, its disposition (hz.tick.dispositions)

    def to_json(self) -> dict[str, Any]:
        return {
            "now": self.now.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "woken": self.woken,
            "deferred": self.deferred,
            "busy": self.busy,
            "pushed": self.pushed,
            "team": self.team,
        }


class Pending(NamedTuple):
    """What the index says needs attention this tick (the idle path reads only this)."""

    due: list[dict[str, Any]]
    waits: list[dict[str, Any]]
    running: list[dict[str, Any]]
    drafts: list[dict[str, Any]]
    watched: list[dict[str, Any]]
    fresh: list[dict[str, Any]]  # approved agents that never had a turn: their `created` turn
    asked: Sequence[dict[str, str]] = ()  # inbox messages no spine took in yet
    discover: bool = False  # today's discovery pass over the playbook's hints is still to run

    def empty(self) -> bool:
        lists = (self.due, self.waits, self.running, self.drafts, self.watched, self.fresh, self.asked)
        return not any(lists) and not self.discover
