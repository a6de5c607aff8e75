"""A tick that finds an agent awake in another process leaves that agent's wakes in its inbox.

The process that holds the spine's lock takes each one in at its next step boundary as `turn.requested`,
and when its turn ends they run as one follow-up turn with every cause (single flight with coalescing),
never as a later, separate turn. Should that process die first, the marker beside each one (hz.tick.asked)
brings it to the next tick, which runs it itself. Only wakes that a later turn can take over are left so:
a schedule slot, an input that moved, a truth gone stale, a discovered source. An approval's learning
turn runs on its own and is found again by the next tick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from hz.session.envelope import Envelope
from hz.session.inbox import put_wake
from hz.session.store import Store
from hz.tick.asked import mark
from hz.turn import history

if TYPE_CHECKING:
    from hz.config import HeinzelSettings
    from hz.tick.candidates import Candidate
    from hz.turn.journal import Journal

QUEUED_KINDS = frozenset({"schedule", "source-changed", "stale", "discovered"})


class SpineView:
    """The spine as another process is writing it: read, never appended to (the lock is not ours)."""

    def __init__(self, directory: Path, events: Sequence[Envelope]) -> None:
        self.directory = directory
        self._events = list(events)

    def events(self) -> Sequence[Envelope]:
        return self._events

    def append(self, kind: str, data: Mapping[str, Any], *, turn: str | None, key: str | None) -> Envelope:
        raise RuntimeError("a spine another process holds is not written here")


def queue_wakes(
    store: Store,
    candidate: Candidate,
    settings: HeinzelSettings,
    *,
    environ: Mapping[str, str],
    now: datetime,
    runner: Any,
) -> list[str]:
    """Leave the agent's new wakes in its inbox; the kinds of those left (none: nothing to take over)."""
    from hz.tick.agentwork import AgentWork
    from hz.tick.turn_deps import make_deps

    directory = store.agent_dir(candidate.agent_id)
    view = SpineView(directory, store.read(candidate.agent_id).events)
    deps = make_deps(store, candidate.plan, settings, environ=environ, now=now, runner=runner)
    work = AgentWork(cast("Journal", view), candidate, deps, store=store, now=now)  # reads only
    events = view.events()
    taken = history.started_keys(events) | history.settled_keys(events) | history.requested_keys(events)
    queued: list[str] = []
    for cause in work.new_causes():
        if cause.kind not in QUEUED_KINDS or cause.key in taken:
            continue
        request, _ = put_wake(directory, cause.kind, cause.key, now=now)
        mark(store.root, candidate.agent_id, request.request_id)
        taken.add(cause.key)
        queued.append(cause.kind)
    return queued
