"""Finding the repository hz runs in, the way git does: walk up from the current directory."""

from __future__ import annotations

from pathlib import Path

from hz.errors import NotInRepository


def find_root(start: Path | None = None) -> Path:
    """The top directory of the git work tree containing `start` (default: the current directory)."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    raise NotInRepository(
        f"not inside a git repository: {here}",
        hint="run hz from inside a team repository, or create one with `git init` and `hz init`",
    )
