"""The payloads of the spine's own upkeep: a torn line cut off (`spine.repaired`), old lines folded away
(`spine.compacted`)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from hz.session.payload_types import (
    Count,
    Hash,
    Ident,
    Key,
    Money,
    Payload,
)


class SpineRepaired(Payload):
    """The next writer cut off a torn last line (a crash mid-append), or `hz heinzel repair` set the lines
    from a break on aside (`SpineWriter.set_aside`)."""

    offset: Count
    dropped_bytes: Count
    dropped_hash: Hash


class KeptEvent(Payload):
    """An event of the folded lines that is still live (a contract version, a lesson, a pending draft …),
    kept whole inside the line that folded them: the same seq, time, turn, kind, key and payload."""

    seq: int = Field(ge=1)
    ts: Ident
    turn: Ident | None = None
    kind: Ident
    key: Key | None = None
    data: dict[str, Any]


class SpineCompacted(Payload):
    """The first line of a compacted spine: the lines up to seq (this line's seq) folded away, `head` the
    hash of the last of them and `folded_hash` of all their bytes, what the folded turns added up to, the
    last fingerprint of each input they saw, and the events among them that are still live."""

    head: Hash
    folded_hash: Hash
    folded_bytes: Count
    folded_lines: Count
    turns: dict[Ident, Count] = {}  # folded turns by disposition (`skipped` for skips)
    usd: dict[Ident, Money] = {}  # what they spent, by cause
    inputs: dict[Ident, Hash] = {}
    kept: list[KeptEvent] = []
