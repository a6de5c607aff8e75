"""A team contract's versions on `main`: version n is the n-th commit on main that moved its fingerprint.

Review on `main` approves a team contract (DESIGN.md, "Team operation"), so its versions are counted
there, the same on every member's machine and in every Actions run: walk main's first-parent line from
its first commit, and each commit after which the contract with that `id:` has another contract
fingerprint than before (its first appearance included) makes the next version. A commit that changes
only the body's wording, or another contract, makes none. The directory defaults (`_defaults.yaml`) of
each commit are merged in before fingerprinting, as they are when the contract is adopted.

Only `workflows/*.prose.md` regular files are read (no links, nothing above MAX_FILE_BYTES): anyone on
the team can commit there. Each distinct contract blob (with its defaults) is compiled once, and a
commit whose `workflows/` tree did not change costs nothing beyond the walk.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pygit2

    from hz.contract.load import Contract

FOLDER = "workflows"
SUFFIX = ".prose.md"
DEFAULTS = "_defaults.yaml"
MAX_HISTORY = 10_000  # first-parent commits read, newest first: years of a busy repository
_REGULAR = (0o100644, 0o100755)


@dataclass(frozen=True)
class MainVersion:
    """A team contract as it stands at the tip of main: its version there and the commit that made it."""

    contract_id: str
    version: int
    commit: str
    label: str  # `workflows/<file>` at the tip
    text: str  # self-contained: the directory defaults merged in
    contract: Contract


def versions_on_main(
    root: Path, commit: str, wanted: Callable[[Contract], bool] = lambda contract: True, seen: Seen | None = None
) -> dict[str, MainVersion]:
    """The contracts with an `id:` at `commit` of main that `wanted` asks for (contract id -> its version
    there, counted on history). The tip's contracts are compiled first and the history is walked only
    when one is wanted: main moves all day, its contracts rarely."""
    import pygit2

    repo = pygit2.Repository(str(root))
    try:
        compiled = _Compiled(repo, seen)
        tip = repo[commit]
        found_at_tip = compiled.contracts(_folder(repo, tip.tree))
        at_tip = {cid: found for cid, found in found_at_tip.items() if wanted(found.contract)}
        if not at_tip:
            return {}
        counts, made = _moves(repo, tip, compiled)
        return {
            cid: MainVersion(cid, counts[cid], made[cid], found.label, found.text, found.contract)
            for cid, found in at_tip.items()
        }
    finally:
        repo.free()


@dataclass(frozen=True)
class AtTip:
    """A team contract as the tip of main holds it, its version not counted (for a text that changed
    with the fingerprint where it was: no new version, the same number with main's text)."""

    contract_id: str
    label: str
    text: str  # self-contained, as MainVersion's
    contract: Contract


def contracts_at_tip(root: Path, commit: str, seen: Seen | None = None) -> dict[str, AtTip]:
    """Every contract with an `id:` at `commit` of main, compiled, with no history read."""
    import pygit2

    repo = pygit2.Repository(str(root))
    try:
        found = _Compiled(repo, seen).contracts(_folder(repo, repo[commit].tree))
    finally:
        repo.free()
    return {cid: AtTip(cid, one.label, one.text, one.contract) for cid, one in found.items()}


def contract_path(root: Path, rev: str, contract_id: str) -> str | None:
    """Where the contract with this `id:` lives at `rev` of main (`workflows/<file>`), None when nowhere."""
    import pygit2

    repo = pygit2.Repository(str(root))
    try:
        tip: Any = repo.revparse_single(rev).peel(pygit2.Commit)
        found = _Compiled(repo).contracts(_folder(repo, tip.tree)).get(contract_id)
    except (KeyError, ValueError, pygit2.GitError):
        return None
    finally:
        repo.free()
    return None if found is None else found.label


def _moves(repo: pygit2.Repository, tip: Any, compiled: _Compiled) -> tuple[dict[str, int], dict[str, str]]:
    """Per contract id: how many first-parent commits moved its fingerprint, and the last of them."""
    counts: dict[str, int] = {}
    made: dict[str, str] = {}
    before: dict[str, str] = {}  # contract id -> fingerprint after the previous commit
    folder_before: Any = None
    for commit in _oldest_first(repo, tip):
        folder = _folder(repo, commit.tree)
        folder_id = None if folder is None else folder.id
        if folder_id == folder_before:
            continue
        folder_before = folder_id
        now = {cid: found.contract.contract_fingerprint for cid, found in compiled.contracts(folder).items()}
        for cid, fingerprint in now.items():
            if before.get(cid) != fingerprint:
                counts[cid] = counts.get(cid, 0) + 1
                made[cid] = str(commit.id)
        before = now
    return counts, made


def _oldest_first(repo: pygit2.Repository, tip: Any) -> list[Any]:
    import pygit2

    walker = repo.walk(tip.id, pygit2.enums.SortMode.TOPOLOGICAL)
    walker.simplify_first_parent()
    return list(itertools.islice(walker, MAX_HISTORY))[::-1]


def _folder(repo: pygit2.Repository, tree: Any) -> Any | None:
    try:
        entry = tree[FOLDER]
    except KeyError:
        return None
    found: Any = repo[entry.id]
    return found if found.type_str == "tree" else None


@dataclass(frozen=True)
class _Found:
    label: str
    text: str
    contract: Contract


Seen = dict[tuple[str, str | None], tuple[str, _Found] | None]
"""Compiled contract blobs by (`workflows/<file>:<blob id>`, defaults blob id): one reader of main (a
tick's adoption: the tip, then the history, then the agents) passes it along to compile each text once."""


class _Compiled:
    """Contract blobs compiled once each, keyed by (blob, defaults blob)."""

    def __init__(self, repo: pygit2.Repository, seen: Seen | None = None) -> None:
        self.repo = repo
        self.seen: Seen = {} if seen is None else seen
        self.defaults: dict[Any, Mapping[str, Any] | None] = {}

    def contracts(self, folder: Any | None) -> dict[str, _Found]:
        """Contract id -> the contract, for every compiling `*.prose.md` with an id in `folder` (first by name)."""
        if folder is None:
            return {}
        defaults_id = _defaults_id(folder)
        found: dict[str, _Found] = {}
        for name, blob_id in _contract_blobs(self.repo, folder):
            key = (f"{FOLDER}/{name}:{blob_id}", None if defaults_id is None else str(defaults_id))
            if key not in self.seen:
                self.seen[key] = self._compile(f"{FOLDER}/{name}", blob_id, defaults_id)
            one = self.seen[key]
            if one is not None and one[0] not in found:
                found[one[0]] = one[1]
        return found

    def _compile(self, label: str, blob_id: Any, defaults_id: Any) -> tuple[str, _Found] | None:
        from hz.heinzel.adopt import self_contained
        from hz.heinzel.versions import ContractInvalid, compile_text
        from hz.repo_paths import MAX_FILE_BYTES

        blob: Any = self.repo[blob_id]
        if blob.size > MAX_FILE_BYTES:  # as a file too large to be a contract: none
            return None
        data: bytes = blob.data
        try:
            text = self_contained(data.decode("utf-8"), self._defaults(defaults_id))
            contract = compile_text(text, label=label, namespace="team")
        except (UnicodeDecodeError, ContractInvalid):
            return None  # a version that does not compile is none: the previous one stands
        contract_id = contract.frontmatter.id
        return None if not contract_id else (str(contract_id), _Found(label, text, contract))

    def _defaults(self, blob_id: Any) -> Mapping[str, Any] | None:
        if blob_id is None:
            return None
        if blob_id not in self.defaults:
            self.defaults[blob_id] = parse_defaults(self.repo[blob_id].data)  # type: ignore[attr-defined]
        return self.defaults[blob_id]


def _contract_blobs(repo: pygit2.Repository, folder: Any) -> Iterator[tuple[str, Any]]:
    for entry in sorted(folder, key=lambda e: e.name):
        if not entry.name.endswith(SUFFIX) or len(entry.name) <= len(SUFFIX) or entry.filemode not in _REGULAR:
            continue
        yield entry.name, entry.id  # its size is checked when it is first compiled, not at every commit


def _defaults_id(folder: Any) -> Any | None:
    try:
        entry = folder[DEFAULTS]
    except KeyError:
        return None
    return entry.id if entry.filemode in _REGULAR else None


def parse_defaults(data: bytes) -> Mapping[str, Any] | None:
    """The `hz:` mapping of a `_defaults.yaml`, None when it is broken (as `hz.contract.defaults` reads it)."""
    from hz.contract.yamlload import YamlProblem, load_mapping
    from hz.repo_paths import MAX_FILE_BYTES

    if len(data) > MAX_FILE_BYTES:
        return None
    try:
        loaded = load_mapping(data.decode("utf-8"))
    except (YamlProblem, UnicodeDecodeError):
        return None
    defaults = loaded.get("hz")
    return defaults if isinstance(defaults, dict) and set(loaded) == {"hz"} else None
