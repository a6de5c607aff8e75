"""What every operation is run against: the environment, the repository and the clock (seams, not globals)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Context:
    """`root`: the repository the head runs in (None outside one); `now`: a pinned clock, else the wall's."""

    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    root: Path | None = None
    now: datetime | None = None

    @classmethod
    def here(cls, environ: Mapping[str, str] = os.environ, now: datetime | None = None) -> Context:
        """The context of a command run in the current directory (its repository, if it is in one)."""
        from hz.errors import NotInRepository
        from hz.repo import find_root

        try:
            root: Path | None = find_root()
        except NotInRepository:
            root = None
        return cls(environ=environ, root=root, now=now)

    def moment(self) -> datetime:
        return self.now or datetime.now(UTC)


def documented(cls: type[T]) -> type[T]:
    """Let pydantic take each field's docstring as its description in the JSON Schema (without importing
    pydantic here: the setting is a plain dict it reads when a schema is asked for)."""
    cls.__pydantic_config__ = {"use_attribute_docstrings": True}  # type: ignore[attr-defined]
    return cls


def request(cls: type[T]) -> type[T]:
    """A request type: documented, and an argument it does not know is refused (a client's typo is
    said, not ignored)."""
    cls.__pydantic_config__ = {"use_attribute_docstrings": True, "extra": "forbid"}  # type: ignore[attr-defined]
    return cls
