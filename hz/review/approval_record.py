"""Recording what became of a team draft on `hz/state`: once per draft key, by whoever saw it first.

No lease is taken: an approval is a fact about `main` and the forge, and any member or Actions run may
be the first to see it. Each receipt carries the (lease, token) of the `draft.placed` it answers, a token
the lease chain did give, so the lint's fence check (HZS017) and the hook accept it from anyone, and
every member builds the same lease fields for it. Two members racing is settled by the remote: the
push moves `hz/state` only from the tip the member saw (`--force-with-lease`), a refused push looks at
the new tip, and a receipt whose draft key has a fate there already (whatever its bytes: another
member's time, another approver reading) is dropped, never written a second time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from hz.errors import HzError
from hz.gitstate import objects
from hz.gitstate.events import Event, path_of
from hz.gitstate.layout import STATE_REF
from hz.gitstate.lint import check_event_file
from hz.gitstate.remote import TeamRemote
from hz.gitstate.transport import ZERO
from hz.review.approval_state import FATES, StateBook

PUSH_ATTEMPTS = 6
PAUSE_S = 0.05


@dataclass
class Recorded:
    landed: list[Event] = field(default_factory=list)  # written by this member
    there: list[Event] = field(default_factory=list)  # another member or run recorded them first
    error: str | None = None  # the remote refused (its hook) or could not be reached; tried next tick


def is_there(book: StateBook, event: Event) -> bool:
    """Has `hz/state` this receipt already: the fate of its draft key (either kind), or the same identity?"""
    if event.kind in FATES:
        return any(book.has(kind, event.id, str(event.data["key"])) for kind in FATES)
    return book.read(path_of(event)) is not None


def record_once(
    remote: TeamRemote,
    tip: str | None,
    events: Sequence[Event],
    now: datetime,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> Recorded:
    """Push `events` on top of `tip` (hz/state as the tick's fetch saw it), compare-and-swap, retried."""
    result = Recorded()
    pending = list(events)
    for attempt in range(PUSH_ATTEMPTS):
        book = StateBook(remote.repo, tip)
        result.there += [e for e in pending if is_there(book, e)]
        pending = _distinct([e for e in pending if not is_there(book, e)])
        if not pending:
            return result
        try:
            commit = _commit(remote, tip, pending, now)
            pushed = remote.git.push(remote.remote, {STATE_REF: commit}, {STATE_REF: tip or ZERO})
        except HzError as exc:
            result.error = exc.message
            return result
        if pushed.ok:
            objects.set_ref(remote.repo, remote.tracking(STATE_REF), commit)
            result.landed += pending
            return result
        if pushed.hook_declined:
            result.error = "the remote refused the receipt of a draft's fate: " + pushed.stderr.strip()[-400:]
            return result
        sleep(random.uniform(0, PAUSE_S * 2**attempt))  # another member's push landed first: look again
        try:
            tip = remote.fetch_tip(STATE_REF)
        except HzError as exc:
            result.error = exc.message
            return result
    result.error = f"hz/state moved under {PUSH_ATTEMPTS} pushes in a row; the next tick records it"
    return result


def _distinct(events: list[Event]) -> list[Event]:
    """One receipt per path (and per draft key for fates): the first one asked for wins."""
    seen: set[str] = set()
    kept: list[Event] = []
    for event in events:
        ident = f"fate:{event.id}:{event.data['key']}" if event.kind in FATES else path_of(event)
        if ident not in seen:
            seen.add(ident)
            kept.append(event)
    return kept


def _commit(remote: TeamRemote, tip: str | None, events: list[Event], now: datetime) -> str:
    import pygit2

    files = {path_of(e): e.line() for e in events}
    for path, data in files.items():
        if problems := check_event_file(path, data):
            raise HzError(f"refusing to record an event that fails the lint: {problems[0].render()}")
    repo = remote.repo
    base = repo[tip].peel(pygit2.Tree).id if tip else None
    tree = objects.write_tree(repo, base, files)
    message = f"hz-state: {len(files)} event{'s' if len(files) != 1 else ''}\n"
    return objects.make_commit(repo, tree, [tip] if tip else [], message, now)
