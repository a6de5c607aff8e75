"""`hz approve ITEM`: a proposed Heinzelmännchen (version 1), a pending amendment, or a draft.

ITEM is resolved in this order: an amendment id (`am-…`); the name or id of an agent that is proposed
(its v1) or has exactly one pending amendment; a pending draft's key. Drafts belong to the turn engine:
their approval is `hz.review.drafts.approve_draft(key, environ=…, now=…) -> int`, called when that module
provides it (SEAM, see the docstring there).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TextIO

from hz.config import load_user_config
from hz.errors import HzError
from hz.heinzel import amendments, lifecycle
from hz.session.index import Row
from hz.session.store import Store


def approve_command(out: TextIO, item: str, *, environ: Mapping[str, str], now: datetime | None = None) -> int:
    config = load_user_config(environ)
    tz = config.timezone or "UTC"
    moment = now or datetime.now(UTC)
    with Store.from_environ(environ) as store:
        found = _amendment(store, item)
        if found is not None:
            row, amendment_id = found
            version = amendments.approve(store, row, amendment_id, by=config.handle, now=moment, default_tz=tz)
            out.write(f"{row['namespace']}:{row['name']} is at v{version} now ({amendment_id} approved)\n")
            return 0
        agent = _agent(store, item)
        if agent is not None and agent["state"] == "proposed":
            row = agent
            lifecycle.approve_agent(store, row, by=config.handle, now=moment, default_tz=tz)
            due = store.index.agent(row["id"])["next_due"]  # type: ignore[index]
            when = f"; first due {due}" if due else ""
            out.write(f"{row['namespace']}:{row['name']} v1 approved: it is asleep and wakes on its own{when}\n")
            return 0
        if agent is not None:
            waiting = [a for a in store.index.amendments(agent["id"]) if a["status"] == "pending"]
            if len(waiting) == 1:
                return approve_command(out, waiting[0]["amendment_id"], environ=environ, now=moment)
        drafts = [d for d in store.index.drafts(status="pending") if d["key"] == item]
    if drafts:
        return _approve_draft(item, environ, moment)
    raise HzError(f"nothing to approve under {item!r}", hint="hz heinzel list shows agents and what they wait for")


def _amendment(store: Store, item: str) -> tuple[Row, str] | None:
    if not item.startswith("am-"):
        return None
    row = store.index.db.execute("SELECT agent FROM amendments WHERE amendment_id = ?", (item,)).fetchone()
    if row is None:
        return None
    agent = store.index.agent(row["agent"])
    return None if agent is None else (agent, item)


def _agent(store: Store, item: str) -> Row | None:
    try:
        return lifecycle.resolve(store, item)
    except lifecycle.UnknownHeinzel:
        return None


def _approve_draft(key: str, environ: Mapping[str, str], now: datetime) -> int:
    from hz.review.drafts import approve_draft

    return approve_draft(key, environ=environ, now=now)
