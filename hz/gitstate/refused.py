"""Events the remote's hook refused: set aside under `$HZ_HOME/gitstate/<key>/refused/`, never retried.

A push that the pre-receive hook declines names each event file it refuses (its diagnostics start with
the file's `events/<id>/…` path). Sending those again can never succeed, and since a tick's events go
out in one commit, retrying them would hold back every later receipt of this machine for good. So the
writer moves the named events here, next to the hook's words, and pushes the rest at once. Nothing is
dropped: each batch stays as two private files (`<n>.jsonl`, the events as they were queued, and
`<n>.txt`, what the remote said), for a person to read and, once `main` declares what they name, to
queue again by hand. A refusal that names none of the events (a lease, the commit) is no reason to set
any aside: the writer reports it as before.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from hz.fsio import atomic_write
from hz.gitstate.events import Event, path_of


def named_in(events: Sequence[Event], said: str) -> list[Event]:
    """The events whose file the remote's refusal names (none when it names none of them)."""
    return [event for event in events if path_of(event) in said]


class SetAside:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def put(self, events: Sequence[Event], said: str) -> Path:
        """Keep `events` with the remote's words; returns the file that holds the events."""
        name = f"{time.time_ns():020d}-{os.getpid()}"
        atomic_write(self.directory / f"{name}.txt", said.encode("utf-8", "replace"))
        atomic_write(self.directory / f"{name}.jsonl", b"".join(event.line() for event in events))
        return self.directory / f"{name}.jsonl"


def report(refused: dict[str, list[Event]], directory: Path) -> str:
    """What a tick says about the events set aside in one flush: how many, where, and the hook's words."""
    count = sum(len(events) for events in refused.values())
    noun = "event" if count == 1 else "events"
    said = "\n".join(refused)
    return f"the remote's hook refused {count} {noun}; set aside in {directory}, not sent again:\n{said}"
