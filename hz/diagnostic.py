"""Diagnostics: frozen findings with a place, a code and a hint, rendered in one place."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding about a file: `path:line:col  CODE  loc`, a message and a hint.

    Lines and columns are 1-based, as editors show them. `loc` names the key path (`hz.inputs.x`) or the
    section (`### Goal`) the finding is about.
    """

    path: str
    line: int
    column: int
    code: str
    severity: Severity
    loc: str
    message: str
    hint: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def render(self) -> str:
        head = f"{self.path}:{self.line}:{self.column}  {self.code}  {self.loc}"
        text = f"{head}\n  {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def at(self, path: str) -> Diagnostic:
        """The same finding about the file shown as `path`."""
        return replace(self, path=path)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def render_all(diagnostics: Iterable[Diagnostic]) -> str:
    return "\n".join(d.render() for d in diagnostics)


def dumps_json(diagnostics: Iterable[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)
