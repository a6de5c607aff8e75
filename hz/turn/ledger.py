"""The effect ledger: an effect in the world happens at most once per key, even across crashes.

Before an effect, `effect.started {key, effect}` is journalled; after it, `effect.done {key, hash}` or
`effect.failed {key, error}`. A resumed turn that finds `started` without an outcome never performs the
effect blindly: it asks the target whether the effect is already there by its key (a draft's tag, a
draft branch) and records `done` if so; only when the target says no is the effect performed, once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from hz.session.envelope import Envelope
from hz.turn.journal import Journal

State = Literal["none", "started", "done", "failed"]


@dataclass(frozen=True)
class Effect:
    """One effect: its key, its kind (`place_draft`, `ask`, `notice`), how to do it and how to find it.

    `perform` does the effect and returns the content hash of what it wrote; `lookup` returns that hash
    when the effect is already in place (found by its key), else None.
    """

    key: str
    kind: str
    perform: Callable[[], str]
    lookup: Callable[[], str | None]


@dataclass(frozen=True)
class Done:
    key: str
    hash: str
    performed: bool  # False when the ledger or the target already had it


class Ledger:
    def __init__(self, journal: Journal, turn: str, events: list[Envelope], environ: Mapping[str, str]) -> None:
        self._journal = journal
        self._turn = turn
        self._environ = environ
        self._states: dict[str, tuple[State, str | None]] = {}
        for event in events:
            self._note(event)

    def _note(self, event: Envelope) -> None:
        key = event.data.get("key")
        if not isinstance(key, str):
            return
        if event.kind == "effect.started":
            self._states[key] = ("started", None)
        elif event.kind == "effect.done":
            self._states[key] = ("done", str(event.data.get("hash")))
        elif event.kind == "effect.failed":
            self._states[key] = ("failed", None)

    def state(self, key: str) -> State:
        return self._states.get(key, ("none", None))[0]

    def run(self, effect: Effect) -> Done:
        """Perform `effect` unless the ledger or the target shows it already happened."""
        from hz.turn.crash import crashpoint

        state, known = self._states.get(effect.key, ("none", None))
        if state == "done" and known is not None:
            return Done(effect.key, known, performed=False)
        if state == "started":
            found = effect.lookup()
            if found is not None:
                self._append("effect.done", {"key": effect.key, "hash": found})
                return Done(effect.key, found, performed=False)
        else:
            self._append("effect.started", {"key": effect.key, "effect": effect.kind})
            crashpoint("effect.started", self._environ)
        try:
            digest = effect.perform()
        except Exception as exc:
            self._append("effect.failed", {"key": effect.key, "error": type(exc).__name__})
            raise
        crashpoint("effect.performed", self._environ)
        self._append("effect.done", {"key": effect.key, "hash": digest})
        return Done(effect.key, digest, performed=True)

    def recover(self, key: str, lookup: Callable[[], str | None]) -> Done | None:
        """Only the look-up: an effect `started` without an outcome that the target shows in place is
        recorded `done` (a turn ending without performing anything more still keeps what it did)."""
        if self.state(key) != "started":
            return None
        found = lookup()
        if found is None:
            return None
        self._append("effect.done", {"key": key, "hash": found})
        return Done(key, found, performed=False)

    def _append(self, kind: str, data: dict[str, str]) -> None:
        event = self._journal.append(kind, data, turn=self._turn, key=None)  # the key is in data
        self._note(event)
