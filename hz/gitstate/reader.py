"""Reading `hz/state`: every event in the order it landed, with soft fencing applied.

Soft fencing: walking the history from its root, the reader remembers per lease the highest token
any earlier commit carried; an event whose token is lower than that was written by a holder that had
already been replaced, so it is void, even on a remote that cannot push atomically. Only the order
of commits on the branch counts here, never a machine's clock.

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
from `since` on are given. In a window a token is judged against the window's earlier commits and the lease
chain; a token stale against commits older than the window itself is not marked void there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from hz.gitstate.events import LEASELESS, Event

if TYPE_CHECKING:
    import pygit2

    from hz.gitstate.lint_fence import LeaseBook


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
"""How much older than a window's start a commit may say it is and still hold events of the window."""


def history(
    repo: pygit2.Repository,
    tip: str,
    leases: LeaseBook | None = None,
    unread: list[str] | None = None,
    since: datetime | None = None,
) -> Iterator[Landed]:
    from hz.gitstate.archive_lint import ARCHIVE_MESSAGE
    from hz.gitstate.double_run import read_event
    from hz.gitstate.lint_fence import LeaseBook
    from hz.gitstate.times import parse_utc

    book = leases or LeaseBook.local(repo)
    latest: dict[str, int] = {}
    for commit in window_commits(repo, tip, since):
        if ARCHIVE_MESSAGE.fullmatch(commit.raw_message):
            continue  # it only moves events out of the tip: nothing landed (no diff of what it moved is made)
        seen: dict[str, int] = {}
        added: list[tuple[str, Event]] = []
        for path, data in _added(repo, commit):
            if (read := read_event(data)) is not None:
                added.append((path, read))
            elif unread is not None:
                unread.append(path)
        for path, event in sorted(added, key=lambda item: (item[1].ts, _ORDER.index(item[1].kind), item[0])):
            given = _given(book, event)
            # an observation of a draft's fate carries the draft's own token, older than later terms'
            void = not given or (event.kind not in LEASELESS and event.token < latest.get(event.lease, 0))
            if given:
                seen[event.lease] = max(seen.get(event.lease, 0), event.token)
            if since is None or parse_utc(event.ts) >= since:
                yield Landed(event, str(commit.id), path, void)
        for lease_id, token in seen.items():
            latest[lease_id] = max(latest.get(lease_id, 0), token)


def window_commits(repo: pygit2.Repository, tip: str, since: datetime | None) -> list[Any]:
    """The commits to read, oldest first: all of them, or those of the window `since` (and `SLACK`)."""
    import pygit2

    if since is None:
        return list(repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE))
    start = (since - SLACK).timestamp()
    found: list[Any] = []
    for commit in repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL):
        if commit.commit_time < start:
            break
        found.append(commit)
    return found[::-1]


def _given(book: LeaseBook, event: Event) -> bool:
    from hz.gitstate.lint_fence import beyond

    """Did the lease chain give this token? True when the chain here cannot tell (absent, or older)."""
    grants = book.grants(event.lease)
    return grants is None or bool(grants.slots(event.token)) or beyond(grants, event.token) or grants.cut


def _added(repo: pygit2.Repository, commit: Any) -> Iterator[tuple[str, bytes]]:
    """The files `commit` added; one too large to be an event (never loaded) reads as empty bytes."""
    from hz.gitstate.layout import MAX_LINE_BYTES, period_of_path
    from hz.gitstate.objects import small_blob

    base: Any = commit.parents[0].tree if commit.parents else repo[repo.TreeBuilder().write()]
    diff: Any = repo.diff(base, commit.tree)
    found = []
    for delta in diff.deltas:
        if delta.status_char() == "A" and period_of_path(delta.new_file.path) is None:  # not an archive index
            found.append((delta.new_file.path, small_blob(repo, delta.new_file.id, MAX_LINE_BYTES) or b""))
    yield from found
