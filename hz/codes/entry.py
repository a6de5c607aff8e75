"""The shape of one entry of the reference: a diagnostic code, or an event kind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# How the meta-test proves an example raises its code: `validate` writes the example's files into a
# fresh repository and runs `hz workflow validate`; `event` lints the example's one file as an added
# file of hz/state; `tests` means the code needs more than files (a history, a hook, a model's
# amendment) and the tests that assert it are found by the code's literal under tests/.
Proof = Literal["validate", "event", "tests"]
Store = Literal["spine", "hz/state"]


@dataclass(frozen=True)
class Code:
    """A diagnostic code: what it means, files that raise it, and how to fix it."""

    code: str
    title: str
    severity: Literal["error", "warning"]
    stage: str  # where it is reported, in the reader's words
    meaning: str
    example: tuple[tuple[str, str], ...]  # (path, text) of each file the example needs
    fix: str
    proof: Proof = "validate"

    @property
    def key(self) -> str:
        return self.code


@dataclass(frozen=True)
class Kind:
    """An event kind: what it records, its payload's fields and where such events live."""

    name: str
    store: Store
    records: str
    fields: tuple[str, ...]  # the payload's (`data`) fields; a trailing `?` marks an optional one

    @property
    def key(self) -> str:
        return f"{self.name} ({self.store})"
