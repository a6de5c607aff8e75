"""Which entries of the repository a `file:` glob names, found without following a link into a folder.

A glob is split at `/`; each part matches one name with `fnmatch` (`*` never crosses a `/`) and `**`
stands for any number of folders, none included. The walk never enters `.git` (in any spelling) and
never enters a link, so it cannot wander out of the repository or loop; a link the glob names (or would
enter) is returned like a file, and the caller judges where it leads (`hz.repo_paths`). Matching runs
the glob as a small automaton over the set of parts it may be at, so many `**` cost no more than one.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from pathlib import Path

from hz.repo_paths import is_git_name

GLOB_CHARS = frozenset("*?[")
States = frozenset[int]


def is_glob(pattern: str) -> bool:
    return not GLOB_CHARS.isdisjoint(pattern)


def glob_parts(pattern: str) -> tuple[str, ...]:
    """The parts of a glob the path rule accepted; a trailing `**` names the files below it."""
    parts = tuple(pattern.split("/"))
    return (*parts, "*") if parts[-1] == "**" else parts


def matching(root: Path, pattern: str) -> list[str]:
    """Relative paths of the files, links and other non-folders the glob names, sorted; a link the glob
    would have to enter to go on is among them, so the caller can name it instead of passing it by."""
    glob = glob_parts(pattern)
    found: list[str] = []
    stack: list[tuple[tuple[str, ...], States]] = [((), frozenset({0}))]
    while stack:
        folder, states = stack.pop()
        try:
            entries = list(os.scandir(root.joinpath(*folder)))
        except OSError:
            continue  # a folder that vanished or cannot be listed names nothing
        for entry in entries:
            if is_git_name(entry.name):
                continue
            after = _advance(glob, states, entry.name)
            deeper = any(at < len(glob) for at in after)
            if entry.is_dir(follow_symlinks=False):
                if deeper:
                    stack.append(((*folder, entry.name), after))
            elif len(glob) in _closure(glob, after) or (deeper and entry.is_symlink()):
                found.append("/".join((*folder, entry.name)))  # a link the walk would have entered, too
    return sorted(found)


def _closure(glob: tuple[str, ...], states: States) -> States:
    """The states, and every part after a `**` from them, since `**` may stand for no folder."""
    out = set(states)
    pending = list(states)
    while pending:
        at = pending.pop()
        if at < len(glob) and glob[at] == "**" and at + 1 not in out:
            out.add(at + 1)
            pending.append(at + 1)
    return frozenset(out)


def _advance(glob: tuple[str, ...], states: States, name: str) -> States:
    """Where the glob may be after one more name: `**` takes it and stays, another part must match it."""
    out: set[int] = set()
    for at in _closure(glob, states):
        if at < len(glob) and glob[at] == "**":
            out.add(at)
        elif at < len(glob) and fnmatchcase(name, glob[at]):
            out.add(at + 1)
    return frozenset(out)
