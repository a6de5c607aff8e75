"""The copies a clone keeps of pending team drafts (`refs/hz/sync/<remote>/placed/…`), dropped after their fate.

A tick keeps a pending draft's commit so it can still be read once a squash merge deleted its branch
(hz.review.approval_watch.placed_copy). Once hz/state gives the draft a fate (approved, rejected,
superseded), whoever recorded it, the copy has nothing left to do, except for an approval's owner, whose
lesson may read the draft as placed while the approval is recent (hz.tick.agentwork); so a clone holds
copies of its pending drafts and of the approvals of that window, never one per turn it ever saw.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import TYPE_CHECKING

from hz.gitstate.layout import event_path
from hz.gitstate.types import parse_utc

if TYPE_CHECKING:
    from hz.gitstate.remote import TeamRemote
    from hz.review.approval_state import StateBook

__all__ = ["forget_decided"]


def forget_decided(remote: TeamRemote, book: StateBook, now: datetime) -> int:
    """Delete the copy of every draft `book` (hz/state as fetched) gives a fate; how many were deleted."""
    prefix = remote.sync_prefix + "placed/"
    names = [name for name in remote.repo.references if name.startswith(prefix)]
    gone = 0
    for name in names:
        if _done(book, name.removeprefix(prefix), now):
            with contextlib.suppress(KeyError, ValueError):
                remote.repo.references.delete(name)
                gone += 1
    return gone


def _done(book: StateBook, tail: str, now: datetime) -> bool:
    """Whether the draft whose copy is `placed/<tail>` has a fate and no lesson may still want its text."""
    from hz.review.approval_publish import RETRY_FOR

    hz_id, _, digest = tail.partition("/")
    placed = book.read(_placed_path(hz_id, digest))
    if placed is None and book.moved(_placed_path(hz_id, digest)):
        return True  # archived within the week: it had a fate, and an approval would still be on the tip
    if placed is None or not book.decided(placed):
        return False  # not on hz/state as fetched (or not readable): nothing proves it was decided
    approval = book.read(event_path(placed.id, "approval.observed", placed.key))
    return approval is None or parse_utc(approval.ts) < now - RETRY_FOR


def _placed_path(hz_id: str, digest: str) -> str:
    """The `draft.placed` file a copy belongs to: placed_copy names it by the same id and digest."""
    return f"events/{hz_id}/{digest[:2]}/draft.placed-{digest}.json"
