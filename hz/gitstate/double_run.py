"""A slot runs once: a second `turn.started` for a slot another token already started is a double run.

Turn events are keyed `<hz id>@<slot>`, and a slot may be spelled to the minute (`…T12:00Z`, as
receipts are) or to the second (`…T12:00:00Z`, as leases are). Both spellings name one instant, so
both are looked up: two runs of one slot can never hide from each other behind different paths. The
same spelling under another token is a changed file, which the lint refuses anyway (HZS002); it is
reported as the double run it is (HZS021), by the lint and the hook alike, and the writer reports it
instead of dropping the second run's receipts without a word (hz.gitstate.writer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from hz.gitstate.event_shapes import EventView, read_plain
from hz.gitstate.layout import event_path
from hz.gitstate.lint_fence import event_slot

if TYPE_CHECKING:
    from hz.gitstate.events import Event
    from hz.gitstate.odb import Repo

STARTED = "turn.started"
HINT = "a slot runs once: the runner that came second takes nothing (see `hz lease log ID` for who held it)"

Reader = Callable[[str], bytes | None]
"""The bytes at a path of `hz/state` as some tree has it, None when there is no such file."""


def spellings(event: EventView) -> list[str]:
    """Every key naming the same instant as `event`'s slot key (the key itself first); [] for other keys."""
    moment = event_slot(event)
    if event.kind != STARTED or moment is None:
        return []
    agent = event.key.split("@", 1)[0]
    keys = [event.key, f"{agent}@{moment:%Y-%m-%dT%H:%M:%SZ}"]
    if moment.second == 0:
        keys.append(f"{agent}@{moment:%Y-%m-%dT%H:%MZ}")
    return list(dict.fromkeys(keys))


def started_before(read: Reader, event: EventView) -> EventView | None:
    """The `turn.started` already at `read` for `event`'s slot under another token, if there is one."""
    for key in spellings(event):
        data = read(event_path(event.id, STARTED, key))
        other = read_plain(data) if data is not None else None
        if other is not None and other.kind == STARTED and other.token != event.token:
            return other
    return None


def double_runs(before: Reader, added: Mapping[str, bytes]) -> dict[str, str]:
    """Added `turn.started` files (path -> bytes, each one a proper event) that run a slot again, with why.

    `before` is the branch as it was; within `added` the lower token counts as the first run, so a pair
    in one commit is reported once, at the second.
    """

    def read(path: str) -> bytes | None:
        return added.get(path) or before(path)

    found: dict[str, str] = {}
    for path, data in added.items():
        if not path.rsplit("/", 1)[-1].startswith(STARTED + "-"):
            continue  # a proper event lies at its kind's path (the lint saw to it): only starts run twice
        event = read_plain(data)
        if event is None:
            continue
        first = started_before(before, event)
        if first is None and (same := started_before(read, event)) is not None and same.token < event.token:
            first = same
        if first is not None:
            found[path] = message(event, first)
    return found


def rerun(old: bytes, new: bytes) -> str | None:
    """Why a changed file is a second run of its slot (a `turn.started` under another token), else None."""
    first, second = read_plain(old), read_plain(new)
    if first is None or second is None or {first.kind, second.kind} != {STARTED}:
        return None
    return message(second, first) if first.token != second.token else None


def tree_reader(repo: Repo, tree: str | None) -> Reader:
    """A `Reader` over a tree of `hz/state`, by its id (None: the branch had nothing yet)."""
    from hz.gitstate.odb import objects_of

    objects = objects_of(repo)

    def read(path: str) -> bytes | None:
        return objects.blob_at(tree, path) if tree is not None else None

    return read


def message(event: EventView, first: EventView) -> str:
    return (
        f"slot {event.key.split('@', 1)[1]} of {event.id} was started already under token {first.token}; "
        f"token {event.token} runs it a second time"
    )


def read_event(data: bytes) -> Event | None:
    """The event in a file of `hz/state` as a model (the readers'); None for anything unreadable (the lint's
    finding, not a double run). The lint and the hook read with hz.gitstate.event_shapes.read_plain, which
    agrees with it without importing the models."""
    import json

    from pydantic import ValidationError

    from hz.gitstate.events import Event

    try:
        return Event.parse_obj_checked(json.loads(data))
    except (ValueError, ValidationError, RecursionError):
        return None
