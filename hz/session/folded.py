"""Reading the first line of a compacted spine (`spine.compacted`): the live events it keeps.

`hz.session.compaction` writes it; readers (`hz.session.spine`) hand out the kept events, in their
order and with their own seq, time, turn and key, before the line's own event. A kept event's `prev`
is None: the line that held it is gone, `folded_hash` vouches for all of them.
"""

from __future__ import annotations

from hz.session.envelope import Envelope, EnvelopeError
from hz.session.kinds import KINDS
from hz.session.migrate import migrate

COMPACTED = "spine.compacted"


def kept_events(envelope: Envelope) -> list[Envelope]:
    """The kept events of a `spine.compacted` line; EnvelopeError when one is not a whole event."""
    kept = envelope.data.get("kept", [])
    if type(kept) is not list:
        raise EnvelopeError("its kept events are not a list")
    events: list[Envelope] = []
    last = 0
    for item in kept:
        if type(item) is not dict:
            raise EnvelopeError("a kept event is not an object")
        seq, ts, kind, data = item.get("seq"), item.get("ts"), item.get("kind"), item.get("data")
        turn, key = item.get("turn"), item.get("key")
        if type(seq) is not int or not last < seq < envelope.seq:
            raise EnvelopeError(f"a kept event's seq {seq!r} is not between {last} and {envelope.seq}")
        if type(ts) is not str or type(kind) is not str or type(data) is not dict:
            raise EnvelopeError("a kept event needs a time, a kind and a payload")
        if not (turn is None or type(turn) is str) or not (key is None or type(key) is str):
            raise EnvelopeError("a kept event's turn and key are strings or absent")
        last = seq
        kind, data = migrate(kind, data)
        if kind in KINDS:
            events.append(Envelope(seq, ts, None, kind, data, turn, key))
    return events
