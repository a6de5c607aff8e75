"""When a lease term is over: its record says `released`, or the turn it was taken for has finished.

A term is one acquisition of `refs/hz/lease/<id>`: a token, given for one slot. Its end used to be a commit
of its own on the chain, the release in the push that carried the turn's `turn.finished`, so every slot
cost the chain two commits. Now that push leaves the lease ref where it was: a term whose `turn.finished`
is on `hz/state`, filed under the slot the record names (either spelling, hz.slots) and written under the
record's token, is over, and the lease reads as free. A record that says `released` (chains written before,
a lease taken for a turn that never ran, `hz lease release`) is over as it always was.

Every reader that asks "free or held?" asks `over` with the lease's tip record and `hz/state` read from one
snapshot (the tick's one fetch, or the fetch of the reader itself). Order does not matter for safety: a
`turn.finished` under a token is there for good once it landed (the archive keeps each contract's newest
turns), and it frees only the term whose token it carries, so a stale `hz/state` reads a lease as held a
little longer, never as free while a later term runs. Why a late writer is still fenced: see
`hz.gitstate.writer_leases.LeaseSteps._lease_updates`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from hz.gitstate.layout import event_path

if TYPE_CHECKING:
    import pygit2

    from hz.gitstate.event_shapes import EventView

FINISHED = "turn.finished"

Reader = Callable[[str], bytes | None]
"""The bytes at a path of `hz/state` as one of its commits has it, None when there is no such file."""


class Term(Protocol):
    """What a lease record says of its term (a LeaseRecord, or the lint's PlainLease)."""

    @property
    def lease(self) -> str: ...
    @property
    def token(self) -> int: ...
    @property
    def slot(self) -> str: ...
    @property
    def state(self) -> str: ...


def done_keys(lease_id: str, slot: str) -> tuple[str, ...]:
    """The keys a receipt ending the slot a lease names may have: its own (hz.slots), then to the second."""
    from hz.slots import lease_stamp, parse_slot, slot_key

    try:
        moment = parse_slot(slot)
    except ValueError:
        return ()
    return (slot_key(lease_id, moment), f"{lease_id}@{lease_stamp(moment)}")


def finish(read: Reader, term: Term) -> EventView | None:
    """The `turn.finished` that ended `term` at `read`: filed under its slot, written under its token."""
    from hz.gitstate.event_shapes import read_plain

    for key in done_keys(term.lease, term.slot):
        data = read(event_path(term.lease, FINISHED, key))
        event = read_plain(data) if data is not None else None
        if event is not None and (event.kind, event.key, event.lease, event.token) == (
            FINISHED,
            key,
            term.lease,
            term.token,
        ):
            return event
    return None


def finished(read: Reader, term: Term) -> bool:
    """Is the turn of `term` finished at `read` (see `finish`)?"""
    return finish(read, term) is not None


def over(read: Reader, term: Term) -> bool:
    """Is the term over: released by its record, or its turn finished (`finished`)?"""
    return term.state == "released" or finished(read, term)


def reader(repo: pygit2.Repository, tip: str | None) -> Reader:
    """A `Reader` over `hz/state` at commit `tip` (None: no `hz/state` yet, nothing is there)."""
    from hz.gitstate.objects import read_path

    def read(path: str) -> bytes | None:
        return read_path(repo, tip, path) if tip is not None else None

    return read
