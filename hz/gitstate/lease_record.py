"""The content of one lease commit: `lease.json` at the root of its tree, nothing else.

A lease ref points at a chain of these commits. Every acquire, renewal and release adds one whose
parent is the tip the writer saw, so the remote accepts it only as a fast-forward (compare-and-swap).
The token is the fencing token: it grows by one on every acquisition, stays the same on renewal and
release, and so never repeats along the chain.

A record whose `state` is `held` says who took the term and until when at the latest; the term is over
sooner when its turn's `turn.finished` is on `hz/state` (hz.gitstate.lease_term), which is how a term whose
turn ran ends: without a release commit. So whether a lease is free is never the record's alone: the
callers pass `ended`, what `hz.gitstate.lease_term.over` says of the record against `hz/state`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from hz.canonical import canonical_json
from hz.gitstate.events import Role
from hz.gitstate.types import AnyUtcTime as UtcTime
from hz.gitstate.types import Holder, HzId, Token, parse_utc

LeaseState = Literal["held", "released"]


class LeaseRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    v: Literal[1] = 1
    lease: HzId
    holder: Holder
    role: Role
    token: Token
    slot: UtcTime
    acquired: UtcTime
    expires: UtcTime
    state: LeaseState = "held"

    def line(self) -> bytes:
        return canonical_json(self.model_dump(mode="json")) + b"\n"

    @classmethod
    def from_bytes(cls, data: bytes) -> LeaseRecord:
        return cls.model_validate_json(data)

    def is_free(self, now: datetime, skew: timedelta, *, ended: bool) -> bool:
        """May someone else take it over? Its term is over (`ended`: released, or its turn finished on
        hz/state), or it expired by more than the clock-skew margin.

        The margin protects the holder from a taker whose clock runs ahead; the holder, in turn,
        stops writing at `expires - skew` (see `valid_for_holder`).
        """
        return ended or self.state == "released" or now > parse_utc(self.expires) + skew

    def valid_for_holder(self, now: datetime, skew: timedelta, *, ended: bool) -> bool:
        """May its holder still act under it: held, its term not over (`ended`), and not within the margin
        of its expiry."""
        return not ended and self.state == "held" and now < parse_utc(self.expires) - skew
