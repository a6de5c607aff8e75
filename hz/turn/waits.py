"""Waiting turns: a stored condition, never a sleeping process.

A step that decides to wait appends `turn.waiting {step, until?, on?}`. Nothing runs until a tick finds
the condition met: `on` (an input moved away from a fingerprint, a draft was approved or rejected, a
question was answered) or `until` passed. A wait without `until` gets `[heinzel] max_wait` as its
until, so no turn waits forever; `until` also wins over an `on` that never matches. A turn resumes
with `turn.resumed {woken_by}` so it knows which fired. When another turn placed a draft for the same
asset while this one waited, it would resume under an old version: it is finished `abandoned` with
reason `superseded` instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class Wait:
    turn: str
    step: str
    since: datetime
    until: datetime
    on: Mapping[str, Any] | None

    @classmethod
    def from_event(cls, turn: str, ts: datetime, data: Mapping[str, Any], max_wait: timedelta) -> Wait:
        until = data.get("until")
        due = datetime.fromisoformat(until.replace("Z", "+00:00")) if isinstance(until, str) else ts + max_wait
        on = data.get("on")
        return cls(turn, str(data.get("step", "act")), ts, due, on if isinstance(on, Mapping) else None)


@dataclass(frozen=True)
class World:
    """What the tick knows now: input fingerprints, decided draft keys, answered question keys."""

    now: datetime
    fingerprints: Mapping[str, str]
    decided: Set[str]
    answered: Set[str]


def woken_by(wait: Wait, world: World) -> str | None:
    """Which condition fired (`source`, `approval`, `answer`, `timer`), or None while still waiting."""
    on = wait.on
    if on is not None:
        kind = on.get("kind")
        if kind == "source":
            current = world.fingerprints.get(str(on.get("input")))
            if current is not None and current != on.get("fingerprint_not"):
                return "source"
        elif kind == "approval" and on.get("key") in world.decided:
            return "approval"
        elif kind == "answer" and on.get("key") in world.answered:
            return "answer"
    if world.now >= wait.until:
        return "timer"
    return None


def wait_data(step: str, *, until: datetime | None = None, on: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The payload of `turn.waiting`, as stored data."""
    data: dict[str, Any] = {"step": step}
    if until is not None:
        data["until"] = until.isoformat()
    if on is not None:
        data["on"] = dict(on)
    return data
