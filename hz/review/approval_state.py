"""What `hz/state` says about the team's drafts: which were placed, which already have a fate.

An event's path on `hz/state` is a function of its kind and key (hz.gitstate.layout), so whether a draft
key has its `approval.observed` or `draft.rejected` is one tree lookup, and two members who saw the same
merge write the same path: the second finds it there and writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from hz.gitstate.events import Event
from hz.gitstate.layout import event_path

if TYPE_CHECKING:
    import pygit2

FATES = ("approval.observed", "draft.rejected")


@dataclass(frozen=True)
class StateBook:
    """The events of one `hz/state` commit, read lazily from its tree."""

    repo: pygit2.Repository
    tip: str | None

    def has(self, kind: str, hz_id: str, key: str) -> bool:
        return self.read(event_path(hz_id, kind, key)) is not None

    def read(self, path: str) -> Event | None:
        """The event at `path`, None when it is not there (or not an event hz can read)."""
        if self.tip is None:
            return None
        tree: Any = self.repo[self.tip].tree
        try:
            blob: Any = self.repo[tree[path].id]
        except KeyError:
            return None
        return _event(bytes(blob.data))

    def fate(self, placed: Event) -> Event | None:
        """The `approval.observed` or `draft.rejected` of a placed draft, if someone recorded it."""
        for kind in FATES:
            if (found := self.read(event_path(placed.id, kind, placed.key))) is not None:
                return found
        return None

    def of_kind(self, kind: str) -> Iterator[Event]:
        """Every event of `kind` (a walk of the tree's names; only files of that kind are read)."""
        if self.tip is None:
            return
        root: Any = self.repo[self.tip].tree
        agents: Any = self.repo[root["events"].id] if "events" in root else ()
        for agent in agents:
            if agent.type_str != "tree":
                continue
            fans: Any = self.repo[agent.id]
            for fan in fans:
                if fan.type_str != "tree":
                    continue
                entries: Any = self.repo[fan.id]
                for entry in entries:
                    if entry.name.startswith(kind + "-") and entry.type_str == "blob":
                        blob: Any = self.repo[entry.id]
                        if (event := _event(bytes(blob.data))) is not None and event.kind == kind:
                            yield event


def _event(data: bytes) -> Event | None:
    try:
        return Event.parse_obj_checked(json.loads(data))
    except (ValueError, ValidationError):
        return None  # the lint refuses such a file; nothing hz reads from it


def undecided(book: StateBook, output_of: Callable[[Event], str]) -> list[tuple[Event, str, bool]]:
    """(draft.placed, its output, superseded) of every draft with no fate yet.

    `output_of` names the output a draft is of (hz.review.approval_watch.Main.output_of). One draft per
    output waits at a time, on that output's branch: a draft is superseded once a newer one of the same
    output was placed (the branch and its pull request moved on to it)."""
    drafts = list(book.of_kind("draft.placed"))
    waiting = sorted((p for p in drafts if book.fate(p) is None), key=lambda p: (p.ts, p.key))  # oldest first
    contracts = {placed.id for placed in waiting}
    newest: dict[tuple[str, str], Event] = {}
    outputs: dict[int, str] = {}
    for placed in drafts:
        if placed.id not in contracts:
            continue
        outputs[id(placed)] = output_of(placed)
        ident = (placed.id, outputs[id(placed)])
        if ident not in newest or (placed.ts, placed.key) > (newest[ident].ts, newest[ident].key):
            newest[ident] = placed
    return [(p, outputs[id(p)], newest[(p.id, outputs[id(p)])] is not p) for p in waiting]


def decided(book: StateBook, rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The index's pending draft rows (a member's local key each) whose team draft has a fate on hz/state.

    A local key names the member's agent, the team key the contract (`hz-<contract id>`), and both end in
    the same occasion (`v1@<slot>@<asset>`): each contract on hz/state is tried, one tree lookup each."""
    if book.tip is None or not rows:
        return []
    root: Any = book.repo[book.tip].tree
    folder: Any = book.repo[root["events"].id] if "events" in root else ()
    contracts = [entry.name for entry in folder]
    occasions = [(row, str(row["key"]).split("@", 1)[1]) for row in rows]
    return [
        row
        for row, occasion in occasions
        if any(book.has(kind, ident, f"{ident}@{occasion}") for ident in contracts for kind in FATES)
    ]
