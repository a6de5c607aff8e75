"""Where a clone keeps its refs, read from the files themselves (no git process, no pygit2).

For the checks an idle tick makes before its one fetch (hz.review.sync), a process per look would cost
more than the look. `packed-refs` and loose ref files are git's own format (git 2.39 writes no reftable
unless asked); a repository laid out any other way answers "unknown" and the caller takes the safe side.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path


def git_dir(root: Path) -> Path | None:
    """Where the repository's refs live: `.git`, or for a linked work tree the common folder it names."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    try:
        text = dot.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    own = (root / text.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (own / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return own
    return (own / common).resolve()


def holds_ref(root: Path, patterns: tuple[str, ...]) -> bool | None:
    """Whether the clone at `root` has a ref matching one of `patterns` (full names, `*` within one part
    or more: fnmatch), loose or packed; None when its refs are not where git keeps them by default."""
    folder = git_dir(root)
    if folder is None or not (folder / "refs").is_dir():
        return None
    for pattern in patterns:
        if any(path.is_file() for path in folder.glob(pattern)):
            return True
    try:
        packed = (folder / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return False
    except OSError:
        return None
    names = (line.partition(" ")[2] for line in packed.splitlines() if line[:1] not in ("#", "^"))
    return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)
