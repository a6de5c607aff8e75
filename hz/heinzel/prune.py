"""Expiry: turn bodies and inbox requests older than `[heinzel] retention_days` (0 keeps them forever).

`prune` is what `hz heinzel prune` runs and what a daemon's `heinzel:prune` job can call: it walks the
store's agents and deletes, per agent, only files hz wrote, never through a link, and is idempotent.
It never touches a spine, a contract version or the index.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from hz.session.bodies import prune_bodies
from hz.session.inbox import prune_requests
from hz.session.store import Store


def prune(store: Store, *, now: datetime, retention_days: int) -> list[Path]:
    deleted: list[Path] = []
    for agent_id in store.index.spine_ids():
        directory = store.agent_dir(agent_id)
        deleted += prune_bodies(directory, now=now, retention_days=retention_days)
        deleted += prune_requests(directory, now=now, retention_days=retention_days)
    return deleted
