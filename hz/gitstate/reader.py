"""Reading `hz/state`: every event in the order it landed, with soft fencing applied.

Soft fencing: walking the history from its root, the reader remembers per lease the highest token
any earlier commit carried; an event whose token is lower than that was written by a holder that had
already been replaced, so it is void, even on a remote that cannot push atomically. Only the order
of commits on the branch counts here, never a machine's clock (times only bound which commits a window reads).

A token counts only when the lease chain gave it: where this repository has the chain (the lease ref,
or hz's fetched copy of it), an event under a token the chain never gave is void and does not raise
the highest token, so one forged event far above the lease cannot void the real ones after it. A
token above the newest one of a fetched copy may be a take-over the copy has not seen yet, so there
it counts as before. The hook refuses such events in the first place.

A file hz cannot read as an event (not JSON, a value out of its type's range such as a time in the year
1, a field no model has) is what a remote without the hook may hold: it is skipped, never raised, and
its path is handed to `unread` when the caller asks, so it can say so once.

Old events live in history, not in the tip (hz.gitstate.layout): they are read where they were added, so
the whole log reads both layouts alike and an archive step (which only deletes and indexes) adds nothing.
`since` bounds the read by a window instead of the history: commits are walked from the tip back to the
first one made more than `SLACK` before `since` (a member's clock may be off by that much), and only events
from `since` on are given. Of the walked commits only those made from `LATE` before `since` on are read, and
any made after one of those (a clock behind): a commit's time and its events' times come from the same
member's clock, the events at most a tick's running time later. The tokens of the commits walked but not
read are read only when the lease chain says one of them could void an event of the window (`_Fence`).
A token stale only against commits older than the walk is not marked void in a window.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from hz.gitstate.events import LEASELESS, Event
from hz.gitstate.odb import Commit, Objects, commit_time, objects_of

if TYPE_CHECKING:
    from hz.gitstate.lint_fence import LeaseBook
    from hz.gitstate.odb import Repo


# within one commit, events of the same second read in the order a turn writes them
_ORDER = (
    "turn.started",
    "draft.superseded",
    "draft.placed",
    "approval.observed",
    "approval.seconded",
    "draft.rejected",
    "publish.done",
    "contract.amended",
    "turn.skipped",
    "turn.finished",
)


@dataclass(frozen=True)
class Landed:
    event: Event
    commit: str
    path: str
    void: bool

    def to_json(self) -> dict[str, object]:
        return {
            "commit": self.commit,
            "path": self.path,
            "void": self.void,
            "event": self.event.model_dump(mode="json"),
        }


SLACK = timedelta(days=1)
"""How far before a window's start the walk goes: a commit whose member's clock was behind by less than this
does not end it early (what lies behind such a commit is reached)."""

LATE = timedelta(hours=2)
"""How much older than a window's start a commit may say it is and still hold events of the window: a tick
stamps its commit with the moment it began and its turns' events with that moment plus the time they ran
(hz.turn.clock), both by the one member's clock; two hours is eight turns run to their default timeout."""


def history(
    repo: Repo,
    tip: str,
    leases: LeaseBook | None = None,
    unread: list[str] | None = None,
    since: datetime | None = None,
) -> Iterator[Landed]:
    from hz.gitstate.archive_lint import ARCHIVE_MESSAGE
    from hz.gitstate.lint_fence import LeaseBook

    objects = objects_of(repo)
    book = leases or LeaseBook.local(objects)
    commits = window_commits(objects, tip, since)
    read = {commit.oid for commit in commits}
    # an archive step only moves events out of the tip: nothing landed (no diff of what it moved is made)
    landed = [commit for commit in commits if not ARCHIVE_MESSAGE.fullmatch(commit.message)]
    behind = _early(commits, since - LATE) if since is not None else set()

    def behind_tokens() -> dict[str, set[int]]:
        pairs = [(commit.oid, _base(objects, commit, read)) for commit in landed if commit.oid in behind]
        return _tokens(objects, objects.added(pairs))

    fence = _Fence(book, (since, behind_tokens) if since is not None and behind else None)
    landing = [commit for commit in landed if commit.oid not in behind]
    files = objects.added([(commit.oid, _base(objects, commit, read)) for commit in landing])
    for commit in landing:
        seen: dict[str, int] = {}
        shown, early = _split(_read(objects, files[commit.oid]), since, unread)
        for path, event in sorted(shown, key=lambda item: (item[1].ts, _ORDER.index(item[1].kind), item[0])):
            given = _given(book, event.lease, event.token)
            # an observation of a draft's fate carries the draft's own token, older than later terms'
            void = not given or (event.kind not in LEASELESS and fence.stale(event.lease, event.token))
            if given:
                seen[event.lease] = max(seen.get(event.lease, 0), event.token)
            yield Landed(event, commit.oid, path, void)
        fence.add(seen, early)


def _base(objects: Objects, commit: Commit, read: set[str]) -> str | None:
    """What `commit` is compared with: its first parent, or nothing where this clone lacks it (a clone cut
    short at a depth: git compares the commit at its boundary with the empty tree, as before). A parent the
    walk read is there; only the oldest commit's is asked about."""
    parent = commit.parents[0] if commit.parents else None
    return parent if parent is not None and (parent in read or objects.header(parent)[0] == "commit") else None


def _split(
    files: Iterator[tuple[str, bytes]], since: datetime | None, unread: list[str] | None
) -> tuple[list[tuple[str, Event]], dict[str, set[int]]]:
    """A commit's events to show (read as models), and the tokens by lease of those before `since`: a window's
    slack and its start hold about as many events as the window itself, and each would cost a model and a
    read of its lease chain; their time, lease and token are all the log needs of them. Such a token is held
    against a later event only once its chain confirms it gave it (`_Fence`), so a damaged file voids nothing."""
    from hz.gitstate.double_run import read_event

    shown: list[tuple[str, Event]] = []
    early: dict[str, set[int]] = {}
    for path, data in files:
        if since is not None and (token := _before(data, since)) is not None:
            early.setdefault(token[0], set()).add(token[1])
        elif (read := read_event(data)) is not None:
            shown.append((path, read))
        elif unread is not None:
            unread.append(path)
    return shown, early


def _before(data: bytes, since: datetime) -> tuple[str, int] | None:
    """The lease and token of an event from before `since`; None for one of the window (or no event)."""
    import json

    from hz.gitstate.times import parse_utc

    at = data.rfind(b'"ts":"')  # the envelope's: its keys are sorted, `ts` after `data`, and quotes are escaped
    end = data.find(b'"', at + 6) if at >= 0 else -1
    try:
        ts = data[at + 6 : end].decode("ascii")
        if end < 0 or parse_utc(ts) >= since:
            return None
        raw = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if type(raw) is not dict or raw.get("ts") != ts:
        return None
    lease, token = raw.get("lease"), raw.get("token")
    return (lease, token) if type(lease) is str and type(token) is int else None


class _Fence:
    """The highest token per lease that earlier commits carried, for soft fencing. Tokens of events read only
    in part (before the window) wait unchecked and are checked against the lease chain only when one of them
    would void an event: the chain is read as far as the window's own tokens need, not the slack's.

    The commits walked but not read (made more than `LATE` before the window) are read for their
    tokens only when an event of the window could be stale against them: when its lease's next token was
    taken before the window began. A writer stops under a token before the next one is taken, and the next
    holder's commits are stamped by the clock that took it, no earlier than the taking; so an event of the
    window whose next token was taken inside it finds no higher token in commits older than the window."""

    def __init__(self, book: LeaseBook, behind: tuple[datetime, Callable[[], dict[str, set[int]]]] | None) -> None:
        self.book = book
        self.latest: dict[str, int] = {}  # given tokens, the highest per lease
        self.waiting: dict[str, list[int]] = {}  # tokens not checked yet, ascending
        self.behind = behind  # the window's start, and the tokens of the commits walked but not read (asked once)

    def stale(self, lease: str, token: int) -> bool:
        """Did an earlier commit carry a higher token of `lease` that its chain gave?"""
        if token < self.latest.get(lease, 0):
            return True
        if self.behind is not None and _next_taken_before(self.book, lease, token, self.behind[0]):
            tokens, self.behind = self.behind[1](), None
            self.add({}, tokens)
        waiting = self.waiting.get(lease, [])
        while waiting and waiting[-1] > token:
            higher = waiting.pop()
            if _given(self.book, lease, higher):
                self.latest[lease] = max(self.latest.get(lease, 0), higher)
                return True
        return False

    def add(self, seen: dict[str, int], early: dict[str, set[int]]) -> None:
        """What one commit carried, counted for the commits after it."""
        for lease_id, token in seen.items():
            self.latest[lease_id] = max(self.latest.get(lease_id, 0), token)
        for lease_id, tokens in early.items():
            floor = self.latest.get(lease_id, 0)
            self.waiting[lease_id] = sorted({*self.waiting.get(lease_id, ()), *(t for t in tokens if t > floor)})


def _next_taken_before(book: LeaseBook, lease: str, token: int, since: datetime) -> bool:
    """Was a token of `lease` above `token` taken before `since`, or can this clone not tell? (Then the commits
    before the read ones may hold it.)"""
    grants = book.grants(lease)
    if grants is None:
        return True
    taken = grants.taken(token + 1)
    if taken is not None:
        return taken < since
    newest = grants.newest()
    return newest is not None and newest > token  # a gap in the chain: what lies in it is unknown


def _early(commits: list[Commit], cut: datetime) -> set[str]:
    """The commits (parents first) made before `cut` whose parents the walk read are all such too: they hold
    no event of the window. A commit made after a read one is read whatever its time (its clock was behind)."""
    walked = {commit.oid for commit in commits}
    early: set[str] = set()
    for commit in commits:
        if commit_time(commit) < cut.timestamp() and all(p in early for p in commit.parents if p in walked):
            early.add(commit.oid)
    return early


def _tokens(objects: Objects, added: dict[str, list[tuple[str, str]]]) -> dict[str, set[int]]:
    """The (lease, token) pairs of the event files in `added`, whatever their time."""
    import json

    found: dict[str, set[int]] = {}
    for files in added.values():
        for _, data in _read(objects, files):
            try:
                raw = json.loads(data)
            except (ValueError, RecursionError):
                continue
            if type(raw) is dict and type(lease := raw.get("lease")) is str and type(token := raw.get("token")) is int:
                found.setdefault(lease, set()).add(token)
    return found


def window_commits(repo: Repo, tip: str, since: datetime | None) -> list[Commit]:
    """The commits to read, parents before children: all of them, or those of the window `since` (and
    `SLACK`). A window is walked back from the tip by parents, newest commit time first, and stops at the
    commits made before it: what it reads is the window's, however long the history behind it. A commit
    this clone lacks (a shallow boundary) ends the walk there."""
    objects = objects_of(repo)
    if since is None:
        return [commit for oid, _ in objects.commits(tip, None) if (commit := objects.commit(oid)) is not None]
    start = (since - SLACK).timestamp()
    found: dict[str, Commit] = {}
    waiting: list[tuple[float, str]] = [(0.0, tip)]
    while waiting:
        _, oid = heapq.heappop(waiting)
        if oid in found or (commit := objects.commit(oid)) is None:
            continue
        when = commit_time(commit)
        if when < start:
            continue  # before the window: neither read nor walked past
        found[oid] = commit
        for parent in commit.parents:
            heapq.heappush(waiting, (-when, parent))
    return _parents_first(found)


def _parents_first(found: dict[str, Commit]) -> list[Commit]:
    """`found` ordered so that every commit comes after its parents among them (git's topological order)."""
    order: list[Commit] = []
    done: set[str] = set()
    for root in found:
        stack = [(root, False)]
        while stack:
            oid, expanded = stack.pop()
            if oid in done:
                continue
            if expanded:
                done.add(oid)
                order.append(found[oid])
                continue
            stack.append((oid, True))
            stack.extend((parent, False) for parent in found[oid].parents if parent in found and parent not in done)
    return order


def _given(book: LeaseBook, lease: str, token: int) -> bool:
    """Did the lease chain give this token? True when the chain here cannot tell (absent, or older)."""
    from hz.gitstate.lint_fence import beyond

    grants = book.grants(lease)
    return grants is None or bool(grants.slots(token)) or beyond(grants, token) or grants.cut


def _read(objects: Objects, files: list[tuple[str, str]]) -> Iterator[tuple[str, bytes]]:
    """The bytes of the event files a commit added; one too large to be an event (never loaded) reads as empty."""
    from hz.gitstate.layout import MAX_LINE_BYTES, is_archive_path

    for path, oid in files:
        if not is_archive_path(path):  # an event, not a file of the archive
            kind, size = objects.header(oid)
            data = objects.blob(oid) if kind == "blob" and size <= MAX_LINE_BYTES else None
            yield path, data or b""
