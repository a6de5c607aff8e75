"""The engine's view of one spine: the events so far, and append under the writer's lock.

The spine itself (format, chain, lock, fsync) is `hz.session.spine`; a `Journal` opens its writer,
reads the trusted events once, and keeps that list in step with every append, so the engine never
rereads the file during a turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.session.envelope import Envelope
from hz.session.frozen import FrozenSpine
from hz.session.spine import SPINE, SpineWriter, read_spine


class Journal:
    def __init__(self, writer: SpineWriter, clock: Callable[[], datetime]) -> None:
        self.writer = writer
        self.directory = writer.directory
        self._clock = clock
        read = read_spine(writer.directory / SPINE)
        if read.break_problem is not None:  # a history with a hole would redo what the lost lines did
            raise FrozenSpine(writer.directory.name, read.break_problem)
        self._events: list[Envelope] = read.events

    @classmethod
    def open(
        cls, agent_dir: Path, *, clock: Callable[[], datetime], timeout: float, listeners: list[Any] | None = None
    ) -> Journal:
        writer = SpineWriter.open(agent_dir, timeout=timeout, listeners=listeners, now=clock())
        try:
            return cls(writer, clock)
        except BaseException:
            writer.close()
            raise

    def close(self) -> None:
        self.writer.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, kind: str, data: Mapping[str, Any], *, turn: str | None, key: str | None) -> Envelope:
        envelope = self.writer.append(kind, dict(data), turn=turn, key=key, now=self._clock())
        self._events.append(envelope)
        return envelope

    def events(self) -> Sequence[Envelope]:
        return self._events
