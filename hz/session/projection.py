"""How each spine event changes the index: one small function per kind, plus `settle` per agent.

The functions are filed by what they change: the agent and its contract (`hz.session.projection_agents`),
its turns (`projection_turns`) and what the turns leave behind (`projection_items`).

`apply(db, agent, event)` is used both when catching up and when rebuilding, so the index maintained
line by line and the index rebuilt from the spines are the same by construction (a property test
checks it). `settle(db, agent)` derives what depends on several rows: the state, the pending items and
`due_at` (the next due slot while the agent may be woken, else NULL), the column the tick's one query
reads.
"""

from __future__ import annotations

import sqlite3

from hz.session import page_rows, projection_agents, projection_items, projection_turns
from hz.session.envelope import Envelope
from hz.session.projection_handler import Handler

# Every kind the index reads, to its handler (a kind of none changes only the keys and the page rows).
_HANDLERS: dict[str, Handler] = {**projection_agents.HANDLERS, **projection_turns.HANDLERS, **projection_items.HANDLERS}

_KEYED = frozenset({"effect.started", "effect.done", "effect.failed", "draft.placed", "question.asked",
                    "question.answered", "turn.requested"})  # fmt: skip
_KEY_SQL = (
    "INSERT INTO keys VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent, key) DO UPDATE SET"
    " kind = excluded.kind, seq = excluded.seq, turn = excluded.turn"
)


def apply(db: sqlite3.Connection, agent: str, event: Envelope) -> None:
    handler = _HANDLERS.get(event.kind)
    if handler is not None:
        handler(db, agent, event)
    if event.kind in page_rows.KINDS:
        page_rows.apply(db, agent, event)
    keys = keys_of(event)
    if len(keys) == 1:
        db.execute(_KEY_SQL, (agent, keys[0], event.kind, event.seq, event.turn))
    elif keys:
        db.executemany(_KEY_SQL, [(agent, key, event.kind, event.seq, event.turn) for key in keys])


# Kinds whose payload may name keys: with `key` null, any other kind has none (a reader's shortcut).
KEY_KINDS = _KEYED | {"turn.started", "turn.skipped"}


def keys_of(event: Envelope) -> list[str]:
    """Every idempotency key an event speaks for: the envelope's, a turn's `keys`, an item's `key`."""
    keys = [event.key] if event.key is not None else []
    if event.kind in _KEYED:
        keys.append(event.data["key"])
    elif event.kind in ("turn.started", "turn.skipped"):
        keys.extend(event.data.get("keys", ()))
    return list(dict.fromkeys(keys))


# --- derived per agent ---------------------------------------------------------------------------

# `+status` keeps SQLite on the (agent, …) primary key: the drafts_status index would scan the pending
# drafts of every agent, which grows with the number of agents on every append.
_SETTLE = """
UPDATE agents SET
    pending_draft = (SELECT key FROM drafts WHERE agent = :a AND +status = 'pending'
                     ORDER BY placed_at DESC, key DESC LIMIT 1),
    pending_question = (SELECT key FROM questions WHERE agent = :a AND answered = 0 ORDER BY asked_at, key LIMIT 1),
    pending_amendment = (SELECT amendment_id FROM amendments WHERE agent = :a AND status = 'pending'
                         ORDER BY seq LIMIT 1)
WHERE id = :a;
"""

_STATE = """
UPDATE agents SET state = CASE
    WHEN retired THEN 'retired'
    WHEN NOT approved THEN 'proposed'
    WHEN paused THEN 'paused'
    WHEN EXISTS (SELECT 1 FROM turns WHERE agent = :a AND status = 'running') THEN 'awake'
    WHEN EXISTS (SELECT 1 FROM turns WHERE agent = :a AND status = 'waiting')
         OR pending_draft IS NOT NULL OR pending_question IS NOT NULL OR pending_amendment IS NOT NULL THEN 'waiting'
    ELSE 'asleep' END
WHERE id = :a;
"""

_DUE = """
UPDATE agents SET due_at = CASE WHEN state IN ('proposed', 'paused', 'retired') THEN NULL ELSE next_due END
WHERE id = :a
"""


def settle(db: sqlite3.Connection, agent: str) -> None:
    for statement in (_SETTLE, _STATE, _DUE):
        db.execute(statement, {"a": agent})
