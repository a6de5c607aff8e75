"""Events waiting to reach `hz/state`: one private file per event under `$HZ_HOME/gitstate/<key>/outbox/`.

Queuing writes the event's line atomically (0600) under a name derived from its identity, so queuing
the same event twice keeps one file. A file leaves the outbox only after the remote has the event
(pushed by us, or found already there), so a crash at any moment loses nothing and doubles nothing.
"""

from __future__ import annotations

from pathlib import Path

from hz.fsio import atomic_write, private_dir
from hz.gitstate.events import Event, path_of


class Outbox:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _file(self, event: Event) -> Path:
        return self.directory / path_of(event).removeprefix("events/").replace("/", ".")

    def put(self, event: Event) -> bool:
        """Queue `event`; False when an event of the same identity is queued already (the first stays)."""
        target = self._file(event)
        if target.exists():
            return False
        private_dir(self.directory)
        atomic_write(target, event.line())
        return True

    def events(self) -> list[Event]:
        """Everything queued, oldest first (by the event's own time, then path)."""
        if not self.directory.exists():
            return []
        found = [
            Event.parse_obj_checked(_load(p))
            for p in sorted(self.directory.glob("*.json"))
            if not p.name.startswith(".")
        ]
        return sorted(found, key=lambda e: (e.ts, path_of(e)))

    def remove(self, events: list[Event]) -> None:
        for event in events:
            self._file(event).unlink(missing_ok=True)

    def __len__(self) -> int:
        return len(self.events())


def _load(path: Path) -> object:
    import json

    return json.loads(path.read_bytes())
