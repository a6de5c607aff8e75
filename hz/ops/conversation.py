"""The chat of one Heinzelmännchen: what was said to it (the inbox) and what became of each message.

The chat is the agent's session, not a store of its own: a message is the inbox file its request wrote
(`hz.session.inbox`, the only place its words are kept, until `retention_days`), and what became of it
is read from the spine: steered into a running turn (`turn.steered`), queued as the next turn
(`turn.requested`), the cause of a turn of its own (a turn whose key names the request), or the answer
to a question (`question.answered`). The reply is that turn's report line. Messages are shown oldest
first, the last `MAX_MESSAGES` of them.
"""

from __future__ import annotations

from typing import Any

from hz.ops.models_agents import Fate, Message

MAX_MESSAGES = 200
FATE_WORDS = {
    "steered": "reached the running turn",
    "queued": "waits for the next turn",
    "own-turn": "a turn of its own",
    "answer": "answered its question",
    "waiting": "waits in the inbox",
}


def messages(agent: str, events: list[Any], inbox: list[Any]) -> list[Message]:
    """Each request the inbox holds, with its fate; `events` are the spine's envelopes. A message whose
    words expired with the inbox (`retention_days`) leaves the chat; its turn stays in the timeline."""
    if not inbox:  # the common case: nothing to look for in a long spine
        return []
    fates: dict[str, tuple[Fate, str | None]] = {}
    reports: dict[str, tuple[str | None, str | None]] = {}
    prefix = f"{agent}@"
    texts = {r.request_id: r for r in inbox}

    def asked(key: str) -> str | None:  # a schedule's key (`hz-…@2026-W05`) names no request
        found = _request_of(key, prefix) if key.startswith(prefix) else None
        return found if found is not None and (found.startswith("rq-") or found in texts) else None

    for event in events:
        data = event.data
        if event.kind == "turn.steered":
            fates.setdefault(str(data["request_id"]), ("steered", event.turn))
        elif event.kind == "question.answered" and data.get("request_id"):
            fates.setdefault(str(data["request_id"]), ("answer", event.turn))
        elif event.kind == "turn.requested" and (found := asked(str(data.get("key", "")))):
            fates.setdefault(found, ("queued", event.turn))
        elif event.kind == "turn.started":
            for found in filter(None, (asked(str(key)) for key in data.get("keys", []))):
                fates[found] = ("own-turn", event.turn)
        elif event.kind == "turn.finished" and event.turn:
            reports[event.turn] = (data.get("report"), data.get("disposition"))
    ids = sorted(texts, key=lambda i: (texts[i].received, i))
    shown: list[Message] = []
    for request_id in ids[-MAX_MESSAGES:]:
        fate, turn = fates.get(request_id, ("waiting", None))
        report, disposition = reports.get(turn or "", (None, None))
        found = texts[request_id]
        if not found.text:
            continue  # a bare wake says nothing
        shown.append({
            "request_id": request_id, "received": found.received, "text": found.text, "fate": fate, "turn": turn,
            "reply": report, "disposition": disposition,
        })  # fmt: skip
    return shown


def _request_of(key: str, prefix: str) -> str:
    """`hz-…@rq-…` is the request itself; a retry's key `hz-…@retry:<turn>:<request>` ends with it."""
    rest = key[len(prefix):]
    return rest.rsplit(":", 1)[-1] if rest.startswith("retry:") else rest
