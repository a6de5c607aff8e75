"""A person's decisions: approve a proposed agent, an amendment or a draft; reject a draft.

An item is resolved in this order: an amendment id (`am-…`); the name or id of an agent that is proposed
(its v1) or has exactly one pending amendment; a pending draft's key. A team draft is approved by merging
its branch on `main`, never here (hz.review.decide says so).
"""

from __future__ import annotations

import io
from datetime import datetime

from hz.config import load_user_config
from hz.errors import HzError
from hz.heinzel import amendments, lifecycle
from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context
from hz.ops.models_actions import ApproveRequest, ApproveResult, RejectRequest, RejectResult
from hz.session.index import Row
from hz.session.store import Store


def approve(ctx: Context, request: ApproveRequest) -> ApproveResult:
    config = load_user_config(ctx.environ)
    tz = config.timezone or "UTC"
    moment = ctx.moment()
    item = request.item
    with Store.from_environ(ctx.environ) as store:
        found = _amendment(store, item)
        if found is not None:
            row, amendment_id = found
            version = amendments.approve(store, row, amendment_id, by=config.handle, now=moment, default_tz=tz)
            said = f"{_named(row)} is at v{version} now ({amendment_id} approved)"
            return _approved(item, "amendment", row, version, said)
        agent = _agent(store, item)
        if agent is not None and agent["state"] == "proposed":
            lifecycle.approve_agent(store, agent, by=config.handle, now=moment, default_tz=tz)
            due = store.index.agent(agent["id"])["next_due"]  # type: ignore[index]
            when = f"; first due {due}" if due else ""
            said = f"{_named(agent)} v1 approved: it is asleep and wakes on its own{when}"
            return _approved(item, "agent", agent, 1, said)
        if agent is not None:
            waiting = [a for a in store.index.amendments(agent["id"]) if a["status"] == "pending"]
            if len(waiting) == 1:
                return {**approve(ctx, ApproveRequest(item=waiting[0]["amendment_id"])), "item": item}
        drafts = [d for d in store.index.drafts(status="pending") if d["key"] == item]
    if drafts:
        return _approved(item, "draft", None, None, _approve_draft(item, ctx, moment))
    if (seconded := _second(item, ctx, moment)) is not None:
        return _approved(item, "seconded", None, None, seconded)
    raise HzError(f"nothing to approve under {item!r}", hint="hz heinzel list shows agents and what they wait for")


def _second(item: str, ctx: Context, now: datetime) -> str | None:
    """A team draft its own author's member approved, seconded by this member when `[review]` on main
    asks for another member (hz.review.second); None when hz/state has no approval of that key."""
    if not item.startswith("hz-") or "@" not in item:
        return None
    from hz.review.second import second_team

    return second_team(item, root=ctx.root, environ=ctx.environ, now=now)


def _approved(item: str, kind: str, row: Row | None, version: int | None, said: str) -> ApproveResult:
    agent = None if row is None else _named(row)
    return {"schema_version": SCHEMA_VERSION, "item": item, "kind": kind, "agent": agent, "version": version,  # type: ignore[typeddict-item]
            "said": said}  # fmt: skip


def _named(row: Row) -> str:
    return f"{row['namespace']}:{row['name']}"


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


def _approve_draft(key: str, ctx: Context, now: datetime) -> str:
    from hz.review.decide import approve as approve_placed

    said = io.StringIO()
    approve_placed(key, environ=ctx.environ, now=now, out=said)
    return said.getvalue().rstrip("\n")


def reject(ctx: Context, request: RejectRequest) -> RejectResult:
    """Record the rejection, then take the draft back (a team draft's pull request closed, its branch gone)."""
    from hz.review.decide import reject as reject_placed

    said = io.StringIO()
    reject_placed(request.key, environ=ctx.environ, now=ctx.moment(), out=said, root=ctx.root)
    return {"schema_version": SCHEMA_VERSION, "key": request.key, "said": said.getvalue().rstrip("\n")}
