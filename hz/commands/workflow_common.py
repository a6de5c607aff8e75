"""What the `hz workflow` commands share: compiling the repository they run in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hz.contract.project import Compiled


def compile_here(environ: Mapping[str, str] = os.environ, cwd: Path | None = None) -> Compiled:
    """Every layer of the repository around `cwd`, compiled (stages 1–3 and the graph)."""
    from hz.contract.project import compile_repository
    from hz.repo import find_root

    root = find_root(cwd)
    return compile_repository(root, environ, cwd=cwd)


def summary(contracts: int, errors: int, warnings: int) -> str:
    def count(n: int, noun: str) -> str:
        return f"{n} {noun}{'' if n == 1 else 's'}"

    found = [count(n, noun) for n, noun in ((errors, "error"), (warnings, "warning")) if n]
    return f"{count(contracts, 'contract')} checked: " + (", ".join(found) if found else "no problems")
