"""Repairing a broken spine: the untrusted lines go into a file of their own, the trusted ones stay.

The smallest sound repair. Nothing is guessed or re-appended: the lines from the break on are moved,
byte for byte, into `session.jsonl.broken-<UTC time>` next to the spine (0600, kept for the user),
and one `spine.repaired` line continues the chain from the last trusted line. The agent then goes on
from there: whatever the set-aside lines recorded (a finished turn, a placed draft) is as if it had
not happened, so that work may run once more; never again on every tick.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hz.session.lock import SPINE
from hz.session.store import Store


@dataclass(frozen=True)
class SetAside:
    kept_seq: int  # the last trusted line, now the spine's last line before `spine.repaired`
    lines: int  # how many lines (or pieces of one) were moved
    path: Path  # where they are


def repair(store: Store, agent_id: str, *, now: datetime) -> SetAside | None:
    """Set the untrusted tail of a broken spine aside; None when the spine is whole."""
    from hz.session.spine import read_spine

    directory = store.agent_dir(agent_id)
    with store.writer(agent_id, now=now, repairing=True) as writer:
        read = read_spine(directory / SPINE)
        if read.break_problem is None:
            return None
        keep = directory / f"{SPINE}.broken-{now.astimezone(UTC).strftime('%Y%m%dT%H%M%S%fZ')}"
        tail = writer.set_aside(read.end, keep, now=now)
    return SetAside(read.last_seq, tail.count(b"\n") + (not tail.endswith(b"\n")), keep)
