"""`hz heinzel show NAME`: contract versions, amendments, the timeline, lessons, pending items, cost."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

from hz.commands.heinzel_list import as_json
from hz.heinzel.lessons import lessons
from hz.heinzel.lifecycle import resolve
from hz.session.frozen import repair_hint
from hz.session.index import Row
from hz.session.store import Store
from hz.spend import money

_AMENDMENT = ("amendment_id", "by_whom", "base_version", "status", "version", "sentence")
_TURN = ("turn", "started_at", "cause", "status", "step", "disposition", "reason", "usd", "report")


def _pick(row: Row, keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: row[k] for k in keys}


def timeline(store: Store, agent: str) -> list[dict[str, Any]]:
    """Every turn the index knows, with the skips no turn was started for (a cap, nothing moved …) among
    them in time order, and for each one stopped by a cap which cap it was and what it would have needed."""
    turns = [{**_pick(t, _TURN), "cap": None, "flags": []} for t in store.index.turns(agent)]
    found: dict[str, dict[str, Any]] = {}
    skips: list[dict[str, Any]] = []
    for event in store.read(agent).events:
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
    return sorted([*turns, *skips], key=lambda t: str(t["started_at"]))


def gather(store: Store, row: Row, now: datetime) -> dict[str, Any]:
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
    return {
        **as_json({**row, "cost_today": sum(c["usd"] for c in costs if c["day"] == day)}, frozen),
        "origin": row["origin"],
        "source": row["source"],
        "created_at": row["created_at"],
        "versions": [
            {k: v[k] for k in ("version", "contract_fingerprint", "amendment_id", "approved", "at")}
            for v in index.versions(agent)
        ],
        "amendments": [{**_pick(a, _AMENDMENT), "widens": json.loads(a["widens"])} for a in index.amendments(agent)],
        "timeline": timeline(store, agent),
        "lessons": [lesson.as_dict() for lesson in lessons(store, row)],
        "drafts": [
            {k: d[k] for k in ("key", "asset", "place", "contract_version", "status", "placed_at")}
            for d in index.drafts(status=None, agent=agent)
        ],
        "questions": [{k: q[k] for k in ("key", "question", "answered", "asked_at")} for q in index.questions(agent)],
        "cost_month": {cause: round(usd, 6) for cause, usd in sorted(month.items())},
        "spine": {
            "last_seq": spine.get("last_seq"),
            "broken_seq": spine.get("broken_seq"),
            "problem": spine.get("problem"),
        },
    }


def _repository(found: Mapping[str, str]) -> str:
    """Where an adopted agent belongs: its remote and root commit, or why it is not bound yet."""
    root = f"root {found['root'][:12]}" if found.get("root") else ""
    if found.get("remote"):
        return f"{found['remote']} ({root})" if root else found["remote"]
    if root or found.get("path"):
        return root or f"{found['path']} (no commit yet)"
    return "not bound yet: its first tick in the repository it was adopted in binds it"


def render(data: Mapping[str, Any], out: TextIO) -> None:
    w = out.write
    w(f"{data['namespace']}:{data['name']}  {data['state']}  {data['id']}\n")
    who = f"user {data['handle']} · " if data["handle"] else ""
    source = f" · from {data['source']}" if data["source"] else ""
    w(f"  {who}created {data['created_at']}{source}\n")
    if (repository := data.get("repository")) is not None:
        w(f"  repository {_repository(repository)}\n")
    w("\ncontract\n")
    for v in data["versions"]:
        status = "approved" if v["approved"] else "awaiting your approval (hz approve)"
        via = f" (amendment {v['amendment_id']})" if v["amendment_id"] else ""
        w(f"  v{v['version']}  {v['contract_fingerprint'][:19]}…  {status}{via}\n")
    for a in data["amendments"]:
        widens = f" widens {', '.join(a['widens'])}" if a["widens"] else ""
        code = " HZC050" if a["status"] == "refused" else ""
        about = f": {a['sentence']}" if a["sentence"] else ""
        head = f"amendment {a['amendment_id']} by {a['by_whom']} on v{a['base_version']}"
        w(f"  {head}: {a['status']}{code}{widens}{about}\n")
    w("\ntimeline\n")
    if not data["timeline"]:
        w("  no turns yet\n")
    for t in data["timeline"]:
        outcome = t["disposition"] or t["status"]
        why = f"{t['reason']}: {money.cap_text(t['cap'])}" if t.get("cap") else t["reason"]
        reason = f" ({why})" if why else ""
        report = f"  {t['report']}" if t["report"] else ""
        flags = "".join(f"  flagged: {money.FLAGS[flag]}" for flag in t.get("flags", ()))
        when = t["started_at"][:16].replace("T", " ")
        w(f"  {when}  {t['cause']}  {outcome}{reason}  {money.usd(t['usd'])} USD{report}{flags}\n")
    w("\nwhat I learned from you\n")
    for n, lesson in enumerate(data["lessons"], start=1):
        mark = " (dismissed)" if lesson["dismissed"] else ""
        w(f"  {n}. {lesson['sentence']}{mark}\n")
    if not data["lessons"]:
        w("  nothing yet\n")
    w("\npending\n")
    pending = [f"  draft {d['key']} at {d['place'] or d['asset']}" for d in data["drafts"] if d["status"] == "pending"]
    pending += [f"  question {q['key']}: {q['question']}" for q in data["questions"] if not q["answered"]]
    pending += [f"  amendment {a['amendment_id']} (hz approve {a['amendment_id']})"
                for a in data["amendments"] if a["status"] == "pending"]  # fmt: skip
    w("\n".join(pending or ["  nothing"]) + "\n")
    month = data["cost_month"]
    parts = ", ".join(f"{money.usd(usd)} {cause}" for cause, usd in month.items())
    total = money.usd(sum(month.values()))
    w(f"\ncost\n  {money.usd(data['cost_today'])} USD today · {total} USD this month{': ' + parts if parts else ''}\n")
    if data["spine"]["problem"]:
        w(f"\nspine\n  {data['spine']['problem']} (events after it are not trusted)\n")
        w(f"  frozen: no wakes, no model calls, no drafts until it is repaired\n  hint: {repair_hint(data['name'])}\n")


def show_command(
    out: TextIO, name: str, *, json_output: bool, environ: Mapping[str, str], now: datetime | None = None
) -> int:
    moment = now or datetime.now(UTC)
    with Store.from_environ(environ) as store:
        data = gather(store, resolve(store, name), moment)
    if json_output:
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        render(data, out)
    return 0
