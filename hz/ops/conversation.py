"""The chat of one Heinzelmännchen: what was said to it (the inbox) and what became of each message.

The chat is the agent's session, not a store of its own: a message is the inbox file its request wrote
(`hz.session.inbox`, the only place its words are kept, until `retention_days`), and what became of it
is read from the spine: steered into a running turn (`turn.steered`), queued as the next turn
(`turn.requested`), the cause of a turn of its own (a turn whose key names the request), or the answer
to a question (`question.answered`). The reply is that turn's report line. Messages are shown oldest
first, the last `MAX_MESSAGES` of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from typing_extensions import TypedDict

from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context, documented
from hz.ops.models_agents import Fate, Message

MAX_MESSAGES = 200
FATE_WORDS = {
    "steered": "reached the running turn",
    "queued": "waits for the next turn",
    "own-turn": "a turn of its own",
    "answer": "answered its question",
    "waiting": "waits in the inbox",
}

@documented
@dataclass(frozen=True, kw_only=True)
class ConversationRequest:
    """One Heinzelmännchen's chat, by name or id."""

    name: str
    """The agent's name or id."""


@documented
class ConversationResult(TypedDict):
    schema_version: int
    agent: str
    messages: list[Message]


def conversation(ctx: Context, request: ConversationRequest) -> ConversationResult:
    from hz.heinzel.lifecycle import resolve
    from hz.session.inbox import list_requests
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        row = resolve(store, request.name)
        agent = str(row["id"])
        inbox = list_requests(store.agent_dir(agent))
        said = [r.request_id for r in inbox if r.text]
        known, resolved = _own_turns(store, agent, said)
        # the spine is read only for what the index cannot tell (a steer, a queued message, an answer):
        # an agent with a thousand turns and an empty inbox costs a folder listing
        events = store.read(agent).events if resolved < len(said) else known
    return {"schema_version": SCHEMA_VERSION, "agent": agent, "messages": messages(agent, events, inbox)}


def _own_turns(store: Any, agent: str, request_ids: list[str]) -> tuple[list[Any], int]:
    """The turns the index knows were started by these requests, as the spine's two events of each
    (turn.started naming the request, turn.finished with its report) would tell them."""
    from types import SimpleNamespace

    found: list[Any] = []
    resolved = 0
    for request_id in request_ids:
        key = f"{agent}@{request_id}"
        hit = store.index.db.execute("SELECT turn FROM keys WHERE agent = ? AND key = ?", (agent, key)).fetchone()
        if hit is None or hit["turn"] is None:
            continue
        turn = store.index.db.execute(
            "SELECT status, disposition, report FROM turns WHERE agent = ? AND turn = ?", (agent, hit["turn"])
        ).fetchone()
        resolved += 1
        found.append(SimpleNamespace(kind="turn.started", turn=hit["turn"], data={"keys": [key]}))
        if turn is not None and turn["status"] not in ("running", "waiting"):
            data = {"report": turn["report"], "disposition": turn["disposition"]}
            found.append(SimpleNamespace(kind="turn.finished", turn=hit["turn"], data=data))
    return found, resolved


def messages(agent: str, events: list[Any], inbox: list[Any]) -> list[Message]:
    """Each request the inbox or the spine knows, with its fate; `events` are the spine's envelopes."""
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
    ids = sorted(set(texts) | set(fates), key=lambda i: (texts[i].received if i in texts else "", i))
    shown: list[Message] = []
    for request_id in ids[-MAX_MESSAGES:]:
        fate, turn = fates.get(request_id, ("waiting", None))
        report, disposition = reports.get(turn or "", (None, None))
        found = texts.get(request_id)
        if found is not None and not found.text and fate == "waiting":
            continue  # a bare wake says nothing
        shown.append({
            "request_id": request_id, "received": found.received if found else None,
            "text": found.text if found else None, "fate": fate, "turn": turn, "reply": report,
            "disposition": disposition,
        })  # fmt: skip
    return [m for m in shown if m["text"] or m["fate"] != "own-turn" or m["reply"]]


def _request_of(key: str, prefix: str) -> str:
    """`hz-…@rq-…` is the request itself; a retry's key `hz-…@retry:<turn>:<request>` ends with it."""
    rest = key[len(prefix):]
    return rest.rsplit(":", 1)[-1] if rest.startswith("retry:") else rest
