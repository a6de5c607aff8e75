"""One Heinzelmännchen in full: contract versions, amendments, the timeline, lessons, pending items, cost.

Everything comes from the index (`hz.session.page_rows` keeps what the list does not need), so showing
an agent with 1,000 turns reads no spine; `verify` reads and checks the whole spine first."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any, cast

from hz.errors import HzError
from hz.heinzel.lessons import lessons
from hz.heinzel.lifecycle import resolve
from hz.ops import SCHEMA_VERSION
from hz.ops.agents import Spend
from hz.ops.context import Context
from hz.ops.conversation import chat
from hz.ops.models_agents import (
    AgentDetail,
    AgentRequest,
    Question,
    SessionSummary,
    ShowRequest,
    ShowResult,
    TimelineEntry,
)
from hz.session.inbox import list_requests
from hz.session.index import Row
from hz.session.page_rows import SUMMARY_FIELDS
from hz.session.store import Store
from hz.spend.day import ledger_day

_AMENDMENT = ("amendment_id", "by_whom", "base_version", "status", "version", "sentence")
_TURN = (
    "turn",
    "started_at",
    "cause",
    "status",
    "step",
    "disposition",
    "reason",
    "usd",
    "report",
    "cap",
    "flags",
    "seq",
)


def _key(draft: Row) -> str:
    """A team draft by the team's key (its contract's id), the one `hz drafts`, `hz state log` and the
    tick say; a personal draft, or one on an older `hz/draft/<agent>/<slot>` branch, by its own."""
    from hz.review.branches import shown_key

    return shown_key(str(draft["key"]), str(draft["place"] or ""))


def _pick(row: Row, keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: row[k] for k in keys}


def show_agent(ctx: Context, request: ShowRequest | AgentRequest) -> ShowResult:
    page = request if isinstance(request, ShowRequest) else ShowRequest(name=request.name)
    if page.turns is not None and page.turns < 1:
        raise HzError(f"turns is {page.turns}; a page shows at least one", hint="leave it out to see every turn")
    with Store.from_environ(ctx.environ) as store:
        row = resolve(store, page.name)
        if page.verify:  # the whole chain read and checked again, the agent's rows rebuilt from it
            store.index.replay(row["id"])
            row = resolve(store, row["id"])
        detail = gather(store, row, ctx.moment(), page)
    return {"schema_version": SCHEMA_VERSION, "agent": detail}


def timeline(store: Store, agent: str, page: ShowRequest | None = None) -> tuple[list[TimelineEntry], bool]:
    """The turns the index knows and the skips no turn was started for (a cap, nothing moved …) among them
    in time order, each stopped by a cap with which cap it was and what it would have needed; with a page,
    only its entries. And whether older ones exist (one more row is read to know)."""
    latest, before = (None, None) if page is None else (page.turns, page.before)
    rows = store.index.timeline(agent, latest=None if latest is None else latest + 1, before=before)
    older = latest is not None and len(rows) > latest
    return [cast(TimelineEntry, {k: r[k] for k in _TURN}) for r in (rows[1:] if older else rows)], older


def summary(store: Store, agent: str) -> SessionSummary | None:
    """The latest `summary.written`: what the agent carries forward about the asset and its user."""
    found = store.index.summary(agent)
    return None if found is None else cast(SessionSummary, {"seq": found["seq"], "at": found["at"],
                                                            **{k: found.get(k) for k in SUMMARY_FIELDS}})  # fmt: skip


def questions(store: Store, row: Row) -> list[Question]:
    """Each question with how to answer it and, while it waits, until when (its wait's `until`)."""
    until = store.index.answer_waits(row["id"])
    found: list[Question] = []
    for q in store.index.questions(row["id"]):
        item: dict[str, Any] = {k: q[k] for k in ("key", "question", "answered", "asked_at")}
        item["answer_with"] = None if q["answered"] else f'hz heinzel chat {row["name"]} "<your answer>"'
        item["waits_until"] = None if q["answered"] else until.get(str(q["key"]))
        found.append(cast(Question, item))
    return found


def gather(store: Store, row: Row, now: datetime, page: ShowRequest | None = None) -> AgentDetail:
    index = store.index
    agent = row["id"]
    day = now.astimezone(UTC).strftime("%Y-%m-%d")
    costs = index.costs(agent)
    month: dict[str, float] = defaultdict(float)
    for cost in costs:
        if cost["day"][:7] == day[:7]:
            month[cost["cause"]] += cost["usd"]
    spine = index.spine_state(agent) or {}
    frozen = {agent: spine["problem"]} if spine.get("problem") else {}
    recorded = sum(c["usd"] for c in costs if c["day"] == day)
    entries, older = timeline(store, agent, page)
    detail: dict[str, Any] = {
        **Spend.of(store, ledger_day()).summary({**row, "cost_today": recorded}, frozen),
        "origin": row["origin"],
        "source": row["source"],
        "created_at": row["created_at"],
        "versions": [
            {k: v[k] for k in ("version", "contract_fingerprint", "amendment_id", "approved", "at")}
            for v in index.versions(agent)
        ],
        "amendments": [{**_pick(a, _AMENDMENT), "widens": json.loads(a["widens"])} for a in index.amendments(agent)],
        "timeline": entries,
        "timeline_total": index.timeline_size(agent),
        "timeline_older": older,
        "summary": summary(store, agent),
        "context_edits": index.context_edits(agent),
        "lessons": [lesson.as_dict() for lesson in lessons(store, row)],
        "drafts": [
            {**{k: d[k] for k in ("asset", "place", "contract_version", "status", "placed_at")}, "key": _key(d)}
            for d in index.drafts(status=None, agent=agent)
        ],
        "questions": questions(store, row),
        "chat": chat(index, agent, list_requests(store.agent_dir(agent))),
        "cost_month": {cause: round(usd, 6) for cause, usd in sorted(month.items())},
        "spine": {
            "last_seq": spine.get("last_seq"),
            "broken_seq": spine.get("broken_seq"),
            "problem": spine.get("problem"),
        },
    }
    return cast(AgentDetail, detail)
