"""Why a turn runs, and the idempotency key that makes each reason run at most once.

A key is `<agent id>@<something that names this one occasion>`: the same occasion seen by two ticks,
two machines or a resumed process yields the same key, so a finished or skipped key is never run again.
The shapes are the interface (they are stored in spines and compared across versions):

    schedule        <id>@<slot>                              slot as UTC minute, `2026-10-30T15:00Z`
    source-changed  <id>@<input>:<fingerprint>               fingerprint of the watched facet(s)
    discovered      <id>@discovered:<source fingerprint>     at most once per source
    asked           <id>@<request id>                        the chat message's id
    approval        <id>@approval:<draft key>                one learning turn per placed draft
    created         <id>@created                             the first turn
    place_draft     <id>@v<version>@<slot>@<asset>           a draft; a later one of the asset in the same
                                                             minute counts in seconds: `…15:00:01Z@…`
    retry           <id>@retry:<parent turn>:<request id>
    stale           <id>@stale:<output>:<valid_until>

An input that moved only by merges of hz drafts (its own or another contract's) is no `source-changed`
cause at all (hz.turn.self_wake): approved outputs reach readers through `contract:` inputs.

Several causes due in one tick coalesce into one wake: its `cause` is the first in `CAUSE_ORDER`, and
`causes` keeps every (cause, key) pair so each one's idempotency holds on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from hz.slots import parse_slot as parse_slot_text
from hz.slots import slot_key, slot_text

# The order of the specification's list; a coalesced turn is filed under the first present.
CAUSE_ORDER: tuple[str, ...] = (
    "schedule",
    "source-changed",
    "discovered",
    "asked",
    "approval",
    "created",
    "retry",
    "stale",
)


def format_slot(slot: datetime) -> str:
    """A schedule slot as it appears in keys: its one string form (hz.slots), `2026-10-30T15:00Z`."""
    return slot_text(slot)


def parse_slot(text: str) -> datetime:
    return parse_slot_text(text)


def schedule_key(agent_id: str, slot: datetime) -> str:
    return slot_key(agent_id, slot)


def source_changed_key(agent_id: str, input_name: str, fingerprint: str) -> str:
    return f"{agent_id}@{input_name}:{fingerprint}"


def discovered_key(agent_id: str, source_fingerprint: str) -> str:
    return f"{agent_id}@discovered:{source_fingerprint}"


def asked_key(agent_id: str, request_id: str) -> str:
    return f"{agent_id}@{request_id}"


def approval_key(agent_id: str, draft_key: str) -> str:
    return f"{agent_id}@approval:{draft_key}"


def created_key(agent_id: str) -> str:
    return f"{agent_id}@created"


def retry_key(agent_id: str, parent_turn: str, request_id: str) -> str:
    return f"{agent_id}@retry:{parent_turn}:{request_id}"


def stale_key(agent_id: str, output: str, valid_until: datetime) -> str:
    return f"{agent_id}@stale:{output}:{format_slot(valid_until)}"


def place_draft_key(agent_id: str, contract_version: int, slot: str, asset: str) -> str:
    """The effect key of placing one draft: `<id>@v<version>@<slot>@<asset>`."""
    return f"{agent_id}@v{contract_version}@{slot}@{asset}"


def nth_slot_text(slot: datetime, n: int) -> str:
    """The slot of the `n`-th draft of one asset placed in one minute (n from 0), as its key spells it.

    The first is the slot itself; a later one in the same minute (a second wake, a retry) counts its
    place in the seconds, `2026-10-30T15:00:01Z`: still the slot's minute, so its target path and the
    key's shape stay what they were, and each draft has a key of its own.
    """
    if n == 0:
        return format_slot(slot)
    if not 0 < n < 60:
        raise ValueError(f"a minute holds no draft number {n}")
    return format_slot(slot)[:-1] + f":{n:02d}Z"


def due_of(kind: str, key: str, seen: datetime) -> datetime:
    """When a cause read back from a key became due: a schedule slot is its slot (its turn drafts for
    that slot), anything else the moment it was `seen` (requested, received)."""
    if kind == "schedule":
        try:
            return parse_slot(key.rsplit("@", 1)[-1])
        except ValueError:
            return seen
    return seen


@dataclass(frozen=True)
class Cause:
    """One reason to wake: its kind, its key, when it became due, and what it carries."""

    kind: str
    key: str
    due: datetime
    detail: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in CAUSE_ORDER:
            raise ValueError(f"unknown cause {self.kind!r}")

    def to_json(self) -> dict[str, str]:
        return {"cause": self.kind, "key": self.key}


@dataclass(frozen=True)
class Wake:
    """All causes of one agent that wake it together, as one turn."""

    agent_id: str
    causes: tuple[Cause, ...]

    @property
    def cause(self) -> Cause:
        return self.causes[0]

    @property
    def key(self) -> str:
        return self.cause.key

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.causes)

    @property
    def oldest_due(self) -> datetime:
        return min(c.due for c in self.causes)

    def kinds(self) -> frozenset[str]:
        return frozenset(c.kind for c in self.causes)


def coalesce(agent_id: str, causes: Iterable[Cause]) -> Wake:
    """One wake from many causes: duplicates (same key) dropped, ordered by `CAUSE_ORDER` then due."""
    unique: dict[str, Cause] = {}
    for cause in causes:
        unique.setdefault(cause.key, cause)
    if not unique:
        raise ValueError("a wake needs at least one cause")
    ordered = sorted(unique.values(), key=lambda c: (CAUSE_ORDER.index(c.kind), c.due, c.key))
    return Wake(agent_id, tuple(ordered))
