"""What `hz/state` says about the team's drafts: which were placed, which already have a fate.

An event's path on `hz/state` is a function of its kind and key (hz.gitstate.layout), so whether a draft
key has its `approval.observed` or `draft.rejected` is one tree lookup, and two members who saw the same
merge write the same path: the second finds it there and writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from hz.gitstate.events import Event
from hz.gitstate.layout import MAX_LINE_BYTES, Marks, event_path, is_event_path
from hz.gitstate.objects import small_blob

if TYPE_CHECKING:
    import pygit2

    from hz.gitstate.event_shapes import EventView

FATES = ("approval.observed", "draft.rejected", "draft.superseded")


class StateBook:
    """The events of one `hz/state` commit: its file names listed once (no blob read), events read lazily."""

    def __init__(self, repo: pygit2.Repository, tip: str | None, only: Collection[str] | None = None) -> None:
        self.repo = repo
        self.tip = tip
        self.only = None if only is None else frozenset(only)  # agent ids to list (None: all); others cost nothing
        self._files: dict[str, Any] | None = None  # path -> blob id
        self.unread: set[str] = set()  # event files read that hold no event hz can read (voided, said once)
        self._marks: Marks | None = None

    @property
    def files(self) -> dict[str, Any]:
        """Every event file of the commit, path -> blob id: one walk of its folders."""
        if self._files is None:
            self._files = {}
            root: Any = self.repo[self.tip].tree if self.tip is not None else None
            if root is not None and "events" in root:
                self._walk(root["events"], "events/", 0)
        return self._files

    def _walk(self, entry: Any, prefix: str, depth: int) -> None:
        folder: Any = self.repo[entry.id]
        for child in folder:
            if depth == 0 and self.only is not None and child.name not in self.only:
                continue  # a contract main does not have: its receipts are never listed, let alone read
            if child.type_str == "tree" and depth < 1:
                self._walk(child, f"{prefix}{child.name}/", depth + 1)
            elif child.type_str == "tree":
                files: Any = self.repo[child.id]
                for leaf in files:
                    self._files[f"{prefix}{child.name}/{leaf.name}"] = leaf.id  # type: ignore[index]

    def has(self, kind: str, hz_id: str, key: str) -> bool:
        return event_path(hz_id, kind, key) in self.files

    def read(self, path: str) -> Event | None:
        """The event at `path`, None when it is not there (or not an event hz can read)."""
        oid = self.files.get(path)
        if oid is None:
            return None
        data = small_blob(self.repo, oid, MAX_LINE_BYTES)  # a huge file is never loaded: it is no event
        found = _event(data) if data is not None else None
        if found is None:
            self.unread.add(path)
        return found

    def fate(self, placed: Event) -> Event | None:
        """The `approval.observed` or `draft.rejected` of a placed draft, if someone recorded it."""
        for kind in FATES:
            if (found := self.read(event_path(placed.id, kind, placed.key))) is not None:
                return found
        return None

    def decided(self, placed: Event) -> bool:
        return any(self.has(kind, placed.id, placed.key) for kind in FATES)

    @property
    def marks(self) -> Marks:
        """The marks of events an archive step moved off this commit's tip within the week (hz.gitstate.layout)."""
        if self._marks is None:
            from hz.gitstate.archive_lint import moved_marks

            self._marks = moved_marks(self.repo, self.repo[self.tip].tree) if self.tip is not None else Marks()
        return self._marks

    def moved(self, path: str) -> bool:
        """Was the event at `path` archived recently? A `draft.placed` that moved had a fate: a pending one
        never moves."""
        from hz.gitstate.layout import moved_mark

        return bool(self.marks) and moved_mark(path) in self.marks

    def of_kind(self, kind: str) -> Iterator[Event]:
        """Every event of `kind` (only files of that kind are read)."""
        mark = f"/{kind}-"
        for path in self.files:
            if mark in path and (event := self.read(path)) is not None and event.kind == kind:
                yield event


def _event(data: bytes) -> Event | None:
    try:
        return Event.parse_obj_checked(json.loads(data))
    except (ValueError, ValidationError, RecursionError):
        return None  # the lint refuses such a file; nothing hz reads from it


def undecided(
    book: StateBook,
    output_of: Callable[[Event], str],
    known: frozenset[str] = frozenset(),
    group_of: Callable[[Event, str], str] | None = None,
) -> tuple[list[tuple[Event, str, Event | None]], list[str]]:
    """(draft.placed, its output, the newer draft that replaced it) of every draft with no fate yet, oldest
    first, and the paths of the `draft.placed` files found decided that `known` (the ones a past tick found
    decided) lacked.

    A fate is forever (hz/state is append-only), so a draft in `known` is not read again: an idle tick
    reads only the drafts still waiting. `output_of` names the output a draft is of, `group_of` (given the
    draft and its output) the branch of its idempotency key (default: the output). One draft per key waits
    at a time, on that key's branch: a draft is superseded once a newer one of the same key was placed (the
    branch and its pull request moved on to it); drafts of other keys wait beside it."""
    seen = _placed(book, known)
    decided_now = [path for path, (_, decided) in seen.items() if decided]
    # only a draft placed after a waiting draft of its contract can be the newest of that draft's key: older
    # ones (a week of decided drafts on the tip) are never read as models nor asked their output
    oldest: dict[str, tuple[str, str]] = {}
    for view, decided in seen.values():
        here = (view.ts, view.key)
        if not decided and (view.id not in oldest or here < oldest[view.id]):
            oldest[view.id] = here
    drafts: list[Event] = []
    decided_ids: set[int] = set()
    for path, (view, decided) in seen.items():
        if view.id in oldest and (view.ts, view.key) >= oldest[view.id] and (placed := book.read(path)) is not None:
            drafts.append(placed)
            decided_ids.update([id(placed)] if decided else [])
    waiting = sorted((p for p in drafts if id(p) not in decided_ids), key=lambda p: (p.ts, p.key))
    newest: dict[tuple[str, str], Event] = {}  # (contract, group) -> its newest draft
    outputs: dict[int, str] = {}
    groups: dict[int, tuple[str, str]] = {}
    for placed in drafts:
        outputs[id(placed)] = output = output_of(placed)
        groups[id(placed)] = ident = (placed.id, group_of(placed, output) if group_of is not None else output)
        if ident not in newest or (placed.ts, placed.key) > (newest[ident].ts, newest[ident].key):
            newest[ident] = placed
    replaced = {id(p): newest[groups[id(p)]] for p in waiting}
    return [(p, outputs[id(p)], None if replaced[id(p)] is p else replaced[id(p)]) for p in waiting], decided_now


def _placed(book: StateBook, known: frozenset[str]) -> dict[str, tuple[EventView, bool]]:
    """Every `draft.placed` of `book` not in `known`, read without the models (an Actions run's empty home
    knows none: a week of the team's drafts), and whether it has a fate. A file the plain reader cannot read
    is read by `book.read` too, which says it unread."""
    from hz.gitstate.event_shapes import read_plain

    found: dict[str, tuple[EventView, bool]] = {}
    mark = "/draft.placed-"
    for path, oid in book.files.items():
        if mark not in path or path in known:
            continue
        data = small_blob(book.repo, oid, MAX_LINE_BYTES)
        view = read_plain(data) if data is not None else None
        if view is None or view.kind != "draft.placed":
            book.read(path)  # not an event hz can read: said once, as the models would
            continue
        found[path] = (view, any(book.has(kind, view.id, view.key) for kind in FATES))
    return found


DECIDED = "approvals-decided"  # in the remote's private folder: `draft.placed` files known to have a fate
SETTLED = "approvals-settled"  # `approval.observed` files whose publishes need nothing more
UNREAD = "approvals-unread"  # event files voided as unreadable, already said in a tick's report
_REMEMBERED_LIMIT = 64 << 20


def remembered(folder: Path, name: str = DECIDED) -> frozenset[str]:
    """Event paths a past tick wrote down in `folder/name` (empty when the file is gone: all are read)."""
    from hz.fsio import read_own

    data = read_own(folder / name, _REMEMBERED_LIMIT) or b""
    return frozenset(line for line in data.decode("utf-8", "replace").splitlines() if is_event_path(line))


def remember(folder: Path, known: frozenset[str], found: Sequence[str], name: str = DECIDED) -> None:
    if found:
        from hz.fsio import atomic_write

        atomic_write(folder / name, "".join(f"{path}\n" for path in sorted({*known, *found})))


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
        row for row, occasion in occasions if any(_fated(book, ident, f"{ident}@{occasion}") for ident in contracts)
    ]


def _fated(book: StateBook, ident: str, key: str) -> bool:
    """A fate on the tip, or the draft archived (which only a draft with a fate is)."""
    return any(book.has(kind, ident, key) for kind in FATES) or book.moved(event_path(ident, "draft.placed", key))
