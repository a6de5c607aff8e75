"""Expiry: turn bodies and inbox requests older than `[heinzel] retention_days` (0 keeps them forever),
and the spine's lines of turns that old folded behind one line (`hz.session.compaction`).

`prune` is what `hz heinzel prune` runs and what a daemon's `heinzel:prune` job can call: it walks the
store's agents and deletes, per agent, only files hz wrote, never through a link, and is idempotent.
A spine is compacted only under its writer's lock, taken without waiting: an agent whose turn runs is
left for the next prune. It never touches a contract version; the index follows the compacted spine.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from hz.session.bodies import prune_bodies
from hz.session.inbox import prune_requests
from hz.session.store import Store


def prune(store: Store, *, now: datetime, retention_days: int, compacted: list[str] | None = None) -> list[Path]:
    """Delete what expired; the ids of the agents whose spine was compacted go to `compacted`."""
    deleted: list[Path] = []
    for agent_id in store.index.spine_ids():
        directory = store.agent_dir(agent_id)
        deleted += prune_bodies(directory, now=now, retention_days=retention_days)
        deleted += prune_requests(directory, now=now, retention_days=retention_days)
        if compact_spine(directory, now=now, retention_days=retention_days) and compacted is not None:
            compacted.append(agent_id)
    return deleted


def compact_spine(directory: Path, *, now: datetime, retention_days: int) -> bool:
    from hz.errors import HzError
    from hz.session.compaction import compact
    from hz.session.spine import SpineWriter

    if retention_days <= 0:
        return False
    try:
        with SpineWriter.open(directory, timeout=0.0) as writer:
            return compact(writer, now=now, retention_days=retention_days) is not None
    except HzError:  # busy (a turn holds the lock) or frozen: left as it is
        return False
