"""`hz heinzel show NAME`: the text of `hz.ops.show` (contract versions, timeline, lessons, pending, cost)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TextIO

from hz.session.frozen import repair_hint
from hz.spend import money


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
    hidden_turns = {e["target"] for e in data["context_edits"]}
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
        hidden = " (hidden from the model)" if t["turn"] in hidden_turns else ""
        turn = f"  · {t['turn']}" if t["turn"] else ""
        w(f"  {when}  {t['cause']}  {outcome}{reason}  {money.usd(t['usd'])} USD{report}{flags}{hidden}{turn}\n")
    w("\nwhat I learned from you\n")
    for n, lesson in enumerate(data["lessons"], start=1):
        mark = " (dismissed)" if lesson["dismissed"] else ""
        w(f"  {n}. {lesson['sentence']}{mark}\n")
    if not data["lessons"]:
        w("  nothing yet\n")
    if data.get("chat"):
        _chat(data["chat"], w)
    w("\npending\n")
    pending = [f"  draft {d['key']} at {d['place'] or d['asset']}" for d in data["drafts"] if d["status"] == "pending"]
    pending += [_question(q) for q in data["questions"] if not q["answered"]]
    pending += [f"  amendment {a['amendment_id']} (hz approve {a['amendment_id']})"
                for a in data["amendments"] if a["status"] == "pending"]  # fmt: skip
    w("\n".join(pending or ["  nothing"]) + "\n")
    _summary(data["summary"], w)
    if data["context_edits"]:
        w("\nhidden from the model\n")
        for edit in data["context_edits"]:
            shown = f"shown as {edit['replacement']!r}" if edit["replacement"] is not None else "hidden"
            w(f"  {edit['target']}  {shown}  (since {edit['at'][:16].replace('T', ' ')})\n")
    month = data["cost_month"]
    parts = ", ".join(f"{money.usd(usd)} {cause}" for cause, usd in month.items())
    total = money.usd(sum(month.values()))
    doubt = f" ({data['in_doubt_today']:.3f} in doubt: {data['in_doubt']})" if data.get("in_doubt") else ""
    today = f"{money.usd(data['cost_today'])} USD today{doubt}"
    w(f"\ncost\n  {today} · {total} USD this month{': ' + parts if parts else ''}\n")
    if data["spine"]["problem"]:
        w(f"\nspine\n  {data['spine']['problem']} (events after it are not trusted)\n")
        w(f"  frozen: no wakes, no model calls, no drafts until it is repaired\n  hint: {repair_hint(data['name'])}\n")


def _chat(messages: list[Mapping[str, Any]], w: Any) -> None:
    """What was said to the agent (its chat is its session) and what became of each message."""
    from hz.ops.conversation import FATE_WORDS

    w("\nchat\n")
    for m in messages:
        when = str(m["received"] or "")[:16].replace("T", " ") or "?"
        text = "(the words expired)" if m["text"] is None else str(m["text"]).replace("\n", "\n      ")
        w(f"  you, {when}: {text}\n")
        outcome = f" ({m['disposition']})" if m["disposition"] else ""
        reply = f": {m['reply']}" if m["reply"] else ""
        w(f"    -> {FATE_WORDS[m['fate']]}{outcome}{reply}\n")


def _summary(found: Mapping[str, Any] | None, w: Any) -> None:
    w("\nlatest summary\n")
    if found is None:
        w("  none yet (one is written after many turns)\n")
        return
    w(f"  written {str(found['at'])[:16].replace('T', ' ')} · asset: {found['asset']}\n")
    w(f"  you want: {found['wants']}\n")
    for label, key in (("decided", "decisions"), ("open", "open_questions"), ("watching", "sources")):
        for item in found.get(key) or ():
            w(f"  {label}: {item}\n")
    if found.get("next_deadline"):
        w(f"  next deadline: {found['next_deadline']}\n")


def _question(q: Mapping[str, Any]) -> str:
    line = f"  question {q['key']}: {q['question']}\n    answer with: {q['answer_with']}"
    if q.get("waits_until"):
        line += f"\n    waits for your answer until {str(q['waits_until'])[:16].replace('T', ' ')} UTC"
    return line


def show_command(
    out: TextIO,
    name: str,
    *,
    json_output: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
    verify: bool = False,
) -> int:
    from hz.ops import Context
    from hz.ops.models_agents import ShowRequest
    from hz.ops.show import show_agent

    data = show_agent(Context(environ=environ, now=now), ShowRequest(name=name, verify=verify))["agent"]
    if json_output:
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        render(data, out)
    return 0
