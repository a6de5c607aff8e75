"""Versions no higher than `main` has: a contract version on `hz/state` is bounded by main's count.

A team contract's version n is the n-th first-parent commit of `main` that moved its fingerprint
(hz.heinzel.main_versions), and every event that names a version (`contract.amended`'s `version`,
`turn.started`'s `contract_version`, the `v<n>` of a draft, approval or version key) names one of those.
Compiling every version to fingerprint it is far too slow for the hook, so the bound counts what can be
read without compiling:

    main's count of a contract = the first-parent commits of main (the newest MAX_HISTORY, as
    hz.heinzel.main_versions reads) after which the `workflows/*.prose.md` files naming its `id:` (or
    the directory's `_defaults.yaml` merged into them) differ from before, its first appearance included.

Every fingerprint move changes one of those files, so this count is never below hz's own. A version may
be one higher: a home that created the agent from its work tree before `main` had the contract numbers
main's versions one past main (hz.heinzel.amendments.record_main_version). So a version is refused when it
exceeds main's count plus one, where main has the contract at all (an id main never had is HZS019's).

History is walked newest first and only as far as a version needs: v1 and v2 need the tip alone (a
contract on the tip has a count of at least one), v3 the last change, and so on. Plain pygit2 and a
YAML read of each distinct contract file's frontmatter: the hook runs it on every push naming v2 or more.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from hz.gitstate.shapes import ULID

if TYPE_CHECKING:
    import pygit2

    from hz.gitstate.event_shapes import EventView as Event
    from hz.gitstate.lint_contracts import MainContracts

FOLDER = "workflows"
SUFFIX = ".prose.md"
DEFAULTS = "_defaults.yaml"
MAX_HISTORY = 10_000  # hz.heinzel.main_versions.MAX_HISTORY: the versions hz counts are in this window
MAX_FILE_BYTES = 1 << 20  # hz.repo_paths.MAX_FILE_BYTES: a larger file is no contract hz reads
SLACK = 1  # a home that had the contract before main numbers one past main's count
HINT = "a version counts the commits of main's first-parent line that changed the contract, plus one"
_REGULAR = (0o100644, 0o100755)
_VERSIONED = re.compile(rf"(?:approval:(hz-{ULID})@)?v([1-9][0-9]{{0,5}})(?:@|$)")
"""The occasions of a key that name a version (hz.gitstate.shapes): `v<n>`, a draft's `v<n>@<slot>@<asset>`,
and `approval:<upstream id>@v<n>@…` (the upstream's version). No other occasion holds `v<digits>` right
after the `@`, and the key's shape was checked before this is read."""

Source = tuple["pygit2.Repository", tuple[Any, ...]]  # a repository and the tips of main to count on
Signature = tuple[frozenset[tuple[str, Any]], Any] | None  # (contract files of the id, defaults blob), or absent


class Counts(Protocol):
    """What the version rule asks of main's counts (a walk of main, or what a cache kept of one)."""

    def allows(self, hz_id: str, version: int) -> tuple[bool, int]: ...

    def known(self) -> tuple[dict[str, int], dict[str, int]]: ...


class VersionCounts:
    """Lower bounds of main's count per contract id, proven by walking main's first-parent line lazily."""

    def __init__(self, repo: pygit2.Repository, tips: tuple[Any, ...]) -> None:
        self.repo = repo
        self.tips = tips
        self._ids: dict[Any, str | None] = {}  # contract blob -> its `hz-<id>`
        self._proven: dict[str, int] = {}  # id -> a count main's history is known to reach
        self._tried: dict[str, int] = {}  # id -> the largest count looked for (as far as history goes)
        self._signatures: dict[tuple[str, Any], Signature] = {}

    def known(self) -> tuple[dict[str, int], dict[str, int]]:
        """(the counts proven per id, the largest count looked for per id): all a later reader needs to
        answer the same questions of the same main without walking it again (hz.gitstate.main_cache)."""
        return dict(self._proven), dict(self._tried)

    def seed(self, proven: dict[str, int], tried: dict[str, int]) -> None:
        """Start from what an earlier walk of this very main proved (`known` of it)."""
        self._proven.update(proven)
        self._tried.update(tried)

    def allows(self, hz_id: str, version: int) -> tuple[bool, int]:
        """(whether `version` is within main's count plus SLACK, main's count as far as it was read)."""
        needed = version - SLACK
        if needed <= 0:
            return True, self._proven.get(hz_id, 0)
        if self._proven.get(hz_id, 0) < needed and self._tried.get(hz_id, 0) < needed:
            self._tried[hz_id] = needed
            for tip in self.tips:
                self._walk(hz_id, tip, needed)
                if self._proven.get(hz_id, 0) >= needed:
                    break
        count = self._proven.get(hz_id, 0)
        return count == 0 or count >= needed, count  # an id main never had is not this rule's

    def _walk(self, hz_id: str, tip: Any, needed: int) -> None:
        """Newest first: each commit whose files of the id differ from its parent's counts one version; the
        walk stops once `needed` are proven (a contract still present has one more below, at least)."""
        counted, current = 0, self._signature(hz_id, tip.tree)
        for commit in itertools.islice(_first_parents(self.repo, tip), 1, MAX_HISTORY):
            if counted + (current is not None) >= needed:
                break
            before = self._signature(hz_id, commit.tree)
            counted += current is not None and before != current
            current = before
        counted += current is not None  # the oldest commit read holds a version (its first, or one more)
        self._proven[hz_id] = max(self._proven.get(hz_id, 0), counted)

    def _signature(self, hz_id: str, root: Any) -> Signature:
        """The id's contract files and defaults at a commit; read once per `workflows/` tree (most commits
        of main leave it as their parent had it)."""
        folder = _folder(self.repo, root)
        if folder is None:
            return None
        if (hz_id, folder.id) not in self._signatures:
            files = frozenset((n, oid) for n, oid in _contract_blobs(self.repo, folder) if self._id(oid) == hz_id)
            self._signatures[hz_id, folder.id] = (files, _defaults_id(folder)) if files else None
        return self._signatures[hz_id, folder.id]

    def _id(self, oid: Any) -> str | None:
        if oid not in self._ids:
            self._ids[oid] = contract_id(bytes(self.repo[oid].data))  # type: ignore[attr-defined]
        return self._ids[oid]


class KeptCounts:
    """Main's counts as an earlier walk of the same main left them (hz.gitstate.main_cache): a version they
    answer costs no walk; one they do not resumes the walk from them, opening the repository only then."""

    def __init__(
        self,
        proven: dict[str, int],
        tried: dict[str, int],
        source: Callable[[], tuple[pygit2.Repository, tuple[Any, ...]]],
    ) -> None:
        self._proven, self._tried = dict(proven), dict(tried)
        self._source = source  # the repository and main's tip, opened when a walk is needed
        self._walker: VersionCounts | None = None

    def known(self) -> tuple[dict[str, int], dict[str, int]]:
        return (dict(self._proven), dict(self._tried)) if self._walker is None else self._walker.known()

    def allows(self, hz_id: str, version: int) -> tuple[bool, int]:
        needed = version - SLACK
        proven = self._proven.get(hz_id, 0)
        if self._walker is None and (needed <= 0 or proven >= needed or self._tried.get(hz_id, 0) >= needed):
            return needed <= 0 or proven == 0 or proven >= needed, proven  # as VersionCounts.allows answers
        if self._walker is None:
            self._walker = VersionCounts(*self._source())
            self._walker.seed(self._proven, self._tried)
        return self._walker.allows(hz_id, version)


def contract_id(data: bytes) -> str | None:
    """`hz-<id>` of a contract file's frontmatter, None when it has none."""
    from hz.contract.text import normalize, split_frontmatter
    from hz.contract.yamlload import YamlProblem, load_mapping

    split = split_frontmatter(normalize(data.decode("utf-8", "replace")))
    if split is None:
        return None
    try:
        found = load_mapping(split.yaml).get("id")
    except YamlProblem:
        return None
    return f"hz-{found}" if isinstance(found, str) else None


def versions_named(event: Event) -> Iterator[tuple[str, int]]:
    """(hz id, version) of every contract version `event` names: its fields and its keys' `v<n>`."""
    data = event.data
    for field in ("version", "contract_version"):
        if event.kind in ("contract.amended", "turn.started") and isinstance(data.get(field), int):
            yield event.id, int(data[field])
    keys = [event.key, *data.get("keys", [])]
    keys += [data[name] for name in ("key", "by", "draft_key") if isinstance(data.get(name), str)]
    for key in keys:
        at = key.find("@")
        if at > 0 and (found := _VERSIONED.match(key, at + 1)) is not None:
            yield found[1] or key[:at], int(found[2])


def version_problem(event: Event, main: MainContracts) -> str | None:
    """Which version `event` names beyond main's count plus one (None: none, or no main to count on)."""
    counts = main.version_counts()
    if counts is None:
        return None
    for hz_id, version in versions_named(event):
        allowed, count = counts.allows(hz_id, version)
        if not allowed:
            said = f"{count} change{'s' * (count != 1)} of it on main's first-parent line"
            return f"v{version} of {hz_id} is more than main has ({said}: v{count + SLACK} at most)"
    return None


def _first_parents(repo: pygit2.Repository, tip: Any) -> Iterator[Any]:
    import pygit2

    walker = repo.walk(tip.id, pygit2.enums.SortMode.NONE)
    walker.simplify_first_parent()
    yield from walker


def _folder(repo: pygit2.Repository, root: Any) -> Any | None:
    try:
        found: Any = repo[root[FOLDER].id]
    except KeyError:
        return None
    return found if found.type_str == "tree" else None


def _contract_blobs(repo: pygit2.Repository, folder: Any) -> Iterator[tuple[str, Any]]:
    """(name, blob id) of the `*.prose.md` regular files of `workflows/` hz reads (hz.heinzel.main_versions)."""
    for entry in folder:
        name = entry.name or ""
        if name.endswith(SUFFIX) and len(name) > len(SUFFIX) and entry.filemode in _REGULAR:
            blob: Any = repo[entry.id]
            if blob.size <= MAX_FILE_BYTES:
                yield name, entry.id


def _defaults_id(folder: Any) -> Any | None:
    try:
        entry = folder[DEFAULTS]
    except KeyError:
        return None
    return entry.id if entry.filemode in _REGULAR else None
