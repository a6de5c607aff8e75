"""What a person hides from an agent's model: `context.edit` events, written on request, never by a model.

A target is a turn (its line in the history the model is shown) or a lesson. The edit changes only what
the context builder hands the model (hz.turn.history); the spine, the bodies and `hz heinzel show` keep
everything as it happened, and show lists the edits beside it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hz.errors import HzError
from hz.session.index import Row
from hz.session.store import Store

MAX_REPLACEMENT = 1000


def hide(store: Store, row: Row, target: str, *, replacement: str | None, now: datetime) -> str:
    """Write the edit; what the target is ("turn" or "lesson"). An unknown target is refused."""
    events = store.read(row["id"]).events
    turns = {e.turn for e in events if e.kind in ("turn.finished",) and e.turn}
    lessons = {str(e.data.get("lesson_id")) for e in events if e.kind == "lesson.recorded"}
    if target in turns:
        what = "turn"
    elif target in lessons:
        what = "lesson"
    else:
        raise HzError(
            f"{row['name']} has no finished turn or lesson {target}",
            hint=f"hz heinzel show {row['name']} --json lists its turns and lessons with their ids",
        )
    if replacement is not None and not (0 < len(replacement) <= MAX_REPLACEMENT and replacement.strip()):
        raise HzError(f"a replacement is a short text of 1 to {MAX_REPLACEMENT} characters", hint="or leave it out")
    data: dict[str, Any] = {"target": target, "replacement": replacement}
    with store.writer(row["id"], now=now) as writer:
        writer.append("context.edit", data, now=now)
    return what


def edits(events: Any) -> list[dict[str, Any]]:
    """Every edit as show lists it: target, replacement (None: hidden), when."""
    return [
        {"target": str(e.data["target"]), "replacement": e.data.get("replacement"), "at": e.ts}
        for e in events
        if e.kind == "context.edit"
    ]
