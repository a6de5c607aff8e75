"""The chat of one Heinzelmännchen: what was said to it (the inbox) and what became of each message.

The chat is the agent's session, not a store of its own: a message is the inbox file its request wrote
(`hz.session.inbox`, the only place its words are kept, until `retention_days`), and what became of it
is what the spine says, as the index keeps it (`hz.session.page_rows`): steered into a running turn
(`turn.steered`), queued as the next turn (`turn.requested`), the cause of a turn of its own (a turn
whose key names the request), or the answer to a question (`question.answered`). The reply is that
turn's report line. Messages are shown oldest first, the last `MAX_MESSAGES` of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from hz.ops.models_agents import Fate, Message

if TYPE_CHECKING:
    from hz.session.page_queries import PageQueries

MAX_MESSAGES = 200
FATE_WORDS = {
    "steered": "reached the running turn",
    "queued": "waits for the next turn",
    "own-turn": "a turn of its own",
    "answer": "answered its question",
    "waiting": "waits in the inbox",
}


def chat(index: PageQueries, agent: str, inbox: list[Any]) -> list[Message]:
    """The chat as the index knows it: each stored request's fate (`hz.session.page_rows`) and the reply of
    the turn that took it in. An empty inbox (the common case) asks nothing."""
    if not inbox:
        return []
    fates = index.fates(agent, [r.request_id for r in inbox])
    return messages(inbox, fates, index.replies(agent, sorted({t for _, t in fates.values() if t})))


def messages(
    inbox: list[Any],
    fates: Mapping[str, tuple[str, str | None]],
    replies: Mapping[str, tuple[str | None, str | None]],
) -> list[Message]:
    """Each request the inbox holds with its fate (by request id: (fate, turn)) and that turn's (report,
    disposition). A message whose words expired with the inbox (`retention_days`) leaves the chat; its
    turn stays in the timeline."""
    texts = {r.request_id: r for r in inbox}
    ids = sorted(texts, key=lambda i: (texts[i].received, i))
    shown: list[Message] = []
    for request_id in ids[-MAX_MESSAGES:]:
        fate, turn = fates.get(request_id, ("waiting", None))
        report, disposition = replies.get(turn or "", (None, None))
        found = texts[request_id]
        if not found.text:
            continue  # a bare wake says nothing
        shown.append({
            "request_id": request_id, "received": found.received, "text": found.text, "fate": cast(Fate, fate),
            "turn": turn, "reply": report, "disposition": disposition,
        })  # fmt: skip
    return shown
