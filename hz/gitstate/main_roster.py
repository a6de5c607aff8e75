"""The members of the team as `main` lists them: the handles of `[team.members]` in its `hz.toml`.

The hook and the lint judge a receipt's approver or rejector by this list, never by a work tree: a pull
request that adds a member counts once it is merged. An `hz.toml` on `main` that does not parse lists
nobody (the hook then refuses every approval until it is mended: a gate that cannot read its list lets
nobody through). `hz state lint` in a member's clone reads history, so a handle the tip no longer lists
is looked up in the earlier `hz.toml`s of `main`'s first-parent line (each distinct file parsed once):
someone who approved and left the team later left a receipt that was fine when written.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pygit2

HZ_TOML = "hz.toml"
MAX_TOML_BYTES = 256 * 1024
MAX_HISTORY = 10_000  # first-parent commits of main read for earlier rosters, at most (as for contracts)


@dataclass
class Roster:
    members: frozenset[str]  # case-folded handles
    _earlier: Any = None  # a callable giving every handle main's history ever listed, read once
    _all: frozenset[str] | None = field(default=None)

    def has(self, handle: str) -> bool:
        folded = handle.casefold()
        if folded in self.members:
            return True
        if self._earlier is None:
            return False
        if self._all is None:
            self._all = self._earlier()
        return folded in self._all

    @classmethod
    def at(cls, repo: pygit2.Repository, tip: Any, history: tuple[Any, ...] | None = None) -> Roster:
        """The roster of commit `tip`; with `history`, earlier rosters of those commits' first parents count too."""
        earlier = None if history is None else (lambda: _history(repo, history))
        return cls(members_of(repo, tip.tree), earlier)


def members_of(repo: pygit2.Repository, root: Any) -> frozenset[str]:
    try:
        blob: Any = repo[root[HZ_TOML].id]
    except KeyError:
        return frozenset()
    return _parse(blob)


def _parse(blob: Any) -> frozenset[str]:
    import tomllib  # here: the hook rebuilds a kept roster without parsing any file

    if blob.type_str != "blob" or blob.size > MAX_TOML_BYTES:
        return frozenset()
    try:
        document = tomllib.loads(bytes(blob.data).decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return frozenset()
    team = document.get("team")
    members = team.get("members") if isinstance(team, dict) else None
    return frozenset(str(h).casefold() for h in members) if isinstance(members, dict) else frozenset()


def _history(repo: pygit2.Repository, tips: tuple[Any, ...]) -> frozenset[str]:
    import pygit2

    seen: set[Any] = set()
    found: set[str] = set()
    for tip in tips:
        walker = repo.walk(tip.id, pygit2.enums.SortMode.NONE)
        walker.simplify_first_parent()
        for commit in itertools.islice(walker, MAX_HISTORY):
            try:
                entry: Any = commit.tree[HZ_TOML]
            except KeyError:
                continue
            if entry.id not in seen:
                seen.add(entry.id)
                found |= _parse(repo[entry.id])
    return frozenset(found)
