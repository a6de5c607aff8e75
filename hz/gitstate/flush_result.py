"""What the state writer (hz.gitstate.writer) takes and gives: a `Draft` branch to carry in its push, the
`FlushResult` of one flush, and `PushRefused` when the remote's hook refuses events none of ours name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hz.errors import HzError
from hz.gitstate import lease
from hz.gitstate.events import Event
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.transport import RefResult


@dataclass(frozen=True)
class Draft:
    """A draft branch's commit for the push, tied to the lease and token of the turn that placed it.

    `expected`: the tip the remote must still have (ZERO: no such branch), so a newer draft of the same
    output replaces the pending one there; None: a fast-forward only. A Draft with no `lease` is a
    decided draft's branch to delete (`commit` ""): bookkeeping anyone may do, tied to no lease term."""

    commit: str
    lease: str
    token: int
    expected: str | None = None


class PushRefused(HzError):
    """The remote (its pre-receive hook) refused our events: a bug or a stricter remote."""


@dataclass
class FlushResult:
    landed: list[Event] = field(default_factory=list)  # pushed by this flush
    already: list[Event] = field(default_factory=list)  # found on hz/state already (an earlier, lost reply)
    fenced: set[str] = field(default_factory=set)  # leases taken over: their turns are abandoned
    dropped: list[Event] = field(default_factory=list)  # never written: fenced, or another copy landed first
    clashed: dict[str, str] = field(default_factory=dict)  # of those, another run's first: path -> why (double runs)
    refused: dict[str, list[Event]] = field(default_factory=dict)  # set aside: the hook's words -> its events
    pending: int = 0  # still queued after the retry bound
    pushes: int = 0
    refs: dict[str, RefResult] = field(default_factory=dict)  # per ref, from the last push
    won: dict[str, LeaseRecord] = field(default_factory=dict)  # claims taken in this push
    lost: dict[str, lease.Outcome] = field(default_factory=dict)  # claims not taken: held, early or done
    published: dict[str, str] = field(default_factory=dict)  # `publish` refs the remote now has (ref -> commit)
    unpublished: dict[str, str] = field(default_factory=dict)  # `publish` refs it refused (ref -> git's reason)
    withheld: dict[str, str] = field(default_factory=dict)  # `publish` refs never pushed: lease fenced (ref -> lease)
    released: set[str] = field(default_factory=set)  # leases released by this flush: their turn ended in it
