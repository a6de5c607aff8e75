"""Which files of the repository a path glob names, without ever looking outside the root.

A glob is split at `/`; each part is matched with `fnmatch` against one name (`*` never crosses a `/`)
and `**` stands for any number of folders, none included. The walk never enters `.git` (in any spelling
`hz.repo_paths` knows: `.GIT`, `git~1`), never follows a link to a folder, and keeps a linked file only
when its real path is a file inside the root and outside `.git`, and never a file git ignores (a
member's `.env`, build output). It visits at most `budget` folder entries, so a glob over a huge tree
costs a bounded amount once a day.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from hz.gitignored import ignored
from hz.repo_paths import is_git_name

LIMIT = 200  # matches kept per glob, the first ones in path order
BUDGET = 20_000  # folder entries looked at per glob


def parts(pattern: str) -> tuple[str, ...] | None:
    """The glob's parts, or None for one that could leave the root (absolute, `..`) or name `.git`."""
    if not pattern or pattern.startswith("/") or "\\" in pattern or "\x00" in pattern:
        return None
    split = tuple(p for p in pattern.split("/") if p not in ("", "."))
    if not split or ".." in split or any(is_git_name(p) for p in split):
        return None
    return (*split, "*") if split[-1] == "**" else split


def matches(pattern: str, path: str) -> bool:
    """Whether a relative path is named by the glob (the same rules the walk follows)."""
    glob, names = parts(pattern), PurePosixPath(path).parts
    return glob is not None and ".." not in names and _match(glob, names)


def _match(glob: tuple[str, ...], names: tuple[str, ...]) -> bool:
    if not glob:
        return not names
    if glob[0] == "**":
        return any(_match(glob[1:], names[skip:]) for skip in range(len(names) + 1))
    return bool(names) and fnmatchcase(names[0], glob[0]) and _match(glob[1:], names[1:])


def matching_files(root: Path, pattern: str, *, limit: int = LIMIT, budget: int = BUDGET) -> list[str]:
    """The repository files the glob names, as sorted relative paths, at most `limit` of them."""
    glob = parts(pattern)
    if glob is None:
        return []
    base = root.resolve()
    found: set[str] = set()
    stack: list[tuple[tuple[str, ...], int]] = [((), 0)]
    seen: set[tuple[tuple[str, ...], int]] = set()
    while stack and budget > 0:
        folder, at = stack.pop()
        if (folder, at) in seen:
            continue
        seen.add((folder, at))
        try:
            entries = sorted(os.scandir(base.joinpath(*folder)), key=lambda e: e.name)
        except OSError:
            continue
        budget -= len(entries)
        deeper: list[tuple[tuple[str, ...], int]] = []
        for entry in entries:
            if not is_git_name(entry.name):  # `.GIT` is `.git` on a case-insensitive disk
                deeper += _step(glob, _expanded(glob, at), folder, entry, base, found)
        stack.extend(reversed(deeper))  # depth first in name order: a walk the budget cut short has the first
    local = ignored(base, found)  # a member's `.env` or build output is no source to propose to the team
    return sorted(found - local)[:limit]


def _expanded(glob: tuple[str, ...], at: int) -> list[int]:
    """`at`, and the parts after each `**` from there on, since `**` may stand for no folder at all."""
    ats = [at]
    while glob[ats[-1]] == "**":  # never the last part (`parts` ends a trailing `**` with `*`)
        ats.append(ats[-1] + 1)
    return ats


def _step(
    glob: tuple[str, ...], ats: list[int], folder: tuple[str, ...], entry: os.DirEntry[str], base: Path, found: set[str]
) -> list[tuple[tuple[str, ...], int]]:
    """Match one folder entry against the parts the walk is at: record a file, or return folders to enter."""
    deeper: list[tuple[tuple[str, ...], int]] = []
    for at in ats:
        if glob[at] == "**":
            if _real_folder(entry):
                deeper.append(((*folder, entry.name), at))
        elif fnmatchcase(entry.name, glob[at]):
            if at == len(glob) - 1:
                if _file_inside(entry, base):
                    found.add("/".join((*folder, entry.name)))
            elif _real_folder(entry):
                deeper.append(((*folder, entry.name), at + 1))
    return deeper


def _real_folder(entry: os.DirEntry[str]) -> bool:
    return entry.is_dir(follow_symlinks=False)


def _file_inside(entry: os.DirEntry[str], base: Path) -> bool:
    if not entry.is_symlink():
        return entry.is_file(follow_symlinks=False)
    real = Path(entry.path).resolve()
    inside = real.is_relative_to(base) and not any(is_git_name(n) for n in real.relative_to(base).parts)
    return inside and real.is_file()
