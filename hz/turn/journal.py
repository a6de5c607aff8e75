"""The engine's view of a spine: append an event, read the events back.

The spine itself (format, chain, lock, fsync) is `hz.session`; this module only names the small surface
the turn engine needs, so the engine's logic can be read without the storage details.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Event:
    seq: int
    ts: str
    turn: str | None
    kind: str
    key: str | None
    data: Mapping[str, Any]


class Journal(Protocol):
    def append(self, kind: str, data: Mapping[str, Any], *, turn: str | None, key: str | None) -> Event: ...

    def events(self) -> Sequence[Event]: ...


def of_turn(events: Sequence[Event], turn: str) -> list[Event]:
    return [e for e in events if e.turn == turn]


def last_of(events: Sequence[Event], kind: str, *, key: str | None = None) -> Event | None:
    for event in reversed(events):
        if event.kind == kind and (key is None or event.key == key):
            return event
    return None
