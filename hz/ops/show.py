"""One Heinzelmännchen in full: contract versions, amendments, the timeline, lessons, pending items, cost."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any, cast

from hz.heinzel.context_edits import edits
from hz.heinzel.lessons import lessons
from hz.heinzel.lifecycle import resolve
from hz.ops import SCHEMA_VERSION
from hz.ops.agents import Spend
from hz.ops.context import Context
from hz.ops.conversation import messages
from hz.ops.models_agents import AgentDetail, AgentRequest, Question, SessionSummary, ShowResult, TimelineEntry
from hz.session.inbox import list_requests
from hz.session.index import Row
from hz.session.store import Store
from hz.spend.day import ledger_day

_AMENDMENT = ("amendment_id", "by_whom", "base_version", "status", "version", "sentence")
_TURN = ("turn", "started_at", "cause", "status", "step", "disposition", "reason", "usd", "report")


def _key(draft: Row) -> str:
    """A team draft by the team's key (its contract's id), the one `hz drafts`, `hz state log` and the
    tick say; a personal draft, or one on an older `hz/draft/<agent>/<slot>` branch, by its own."""
    from hz.review.branches import shown_key

    return shown_key(str(draft["key"]), str(draft["place"] or ""))


def _pick(row: Row, keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: row[k] for k in keys}


def show_agent(ctx: Context, request: AgentRequest) -> ShowResult:
    with Store.from_environ(ctx.environ) as store:
        detail = gather(store, resolve(store, request.name), ctx.moment())
    return {"schema_version": SCHEMA_VERSION, "agent": detail}


def timeline(store: Store, agent: str, events: list[Any] | None = None) -> list[TimelineEntry]:
    """Every turn the index knows, with the skips no turn was started for (a cap, nothing moved …) among
    them in time order, and for each one stopped by a cap which cap it was and what it would have needed."""
    turns: list[dict[str, Any]] = [{**_pick(t, _TURN), "cap": None, "flags": []} for t in store.index.turns(agent)]
    found: dict[str, dict[str, Any]] = {}
    skips: list[dict[str, Any]] = []
    for event in store.read(agent).events if events is None else events:
        if event.kind == "turn.finished" and event.turn and (event.data.get("cap") or event.data.get("flags")):
            found[event.turn] = {"cap": event.data.get("cap"), "flags": list(event.data.get("flags", []))}
        elif event.kind == "turn.skipped":
            causes = event.data.get("causes") or [None]
            skips.append({
                "turn": None, "started_at": event.ts, "cause": causes[0], "status": "skipped",
                "step": None, "disposition": "skipped", "reason": event.data.get("reason"),
                "usd": float(event.data.get("usd", 0.0)), "report": None, "cap": event.data.get("cap"), "flags": [],
            })  # fmt: skip
    for turn in turns:
        turn.update(found.get(str(turn["turn"]), {}))
    return cast(list[TimelineEntry], sorted([*turns, *skips], key=lambda t: str(t["started_at"])))


SUMMARY_FIELDS = ("asset", "wants", "decisions", "open_questions", "next_deadline", "sources")


def summary(store: Store, agent: str) -> SessionSummary | None:
    """The latest `summary.written`: what the agent carries forward about the asset and its user."""
    found = None
    for event in store.read(agent).events:
        if event.kind == "summary.written":
            found = event
    if found is None:
        return None
    return cast(SessionSummary, {"seq": found.seq, "at": found.ts, **{k: found.data.get(k) for k in SUMMARY_FIELDS}})


def questions(store: Store, row: Row) -> list[Question]:
    """Each question with how to answer it and, while it waits, until when (its wait's `until`)."""
    until: dict[str, str] = {}
    for event in store.read(row["id"]).events:
        on = event.data.get("on") if event.kind == "turn.waiting" else None
        if isinstance(on, dict) and on.get("kind") == "answer" and event.data.get("until"):
            until[str(on.get("key"))] = str(event.data["until"])
    found: list[Question] = []
    for q in store.index.questions(row["id"]):
        item: dict[str, Any] = {k: q[k] for k in ("key", "question", "answered", "asked_at")}
        item["answer_with"] = None if q["answered"] else f'hz heinzel chat {row["name"]} "<your answer>"'
        item["waits_until"] = None if q["answered"] else until.get(str(q["key"]))
        found.append(cast(Question, item))
    return found


def gather(store: Store, row: Row, now: datetime) -> AgentDetail:
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
    events = store.read(agent).events  # read once: the timeline's skips and caps, and the chat's fates
    recorded = sum(c["usd"] for c in costs if c["day"] == day)
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
        "timeline": timeline(store, agent, events),
        "summary": summary(store, agent),
        "context_edits": edits(events),
        "lessons": [lesson.as_dict() for lesson in lessons(store, row)],
        "drafts": [
            {**{k: d[k] for k in ("asset", "place", "contract_version", "status", "placed_at")}, "key": _key(d)}
            for d in index.drafts(status=None, agent=agent)
        ],
        "questions": questions(store, row),
        "chat": messages(agent, events, list_requests(store.agent_dir(agent))),
        "cost_month": {cause: round(usd, 6) for cause, usd in sorted(month.items())},
        "spine": {
            "last_seq": spine.get("last_seq"),
            "broken_seq": spine.get("broken_seq"),
            "problem": spine.get("problem"),
        },
    }
    return cast(AgentDetail, detail)
