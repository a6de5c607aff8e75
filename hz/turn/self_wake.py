"""No wakes by drafts: an input that moved only by merges of hz drafts is not `source-changed`.

A contract that reads this repository's history (`git:` / `git:.`) drafts on a branch; when the review
merges that draft, the history moves, and without this check the contract would wake on its own
approved output and draft again, every time (issue 11, finding 5). The same holds for the drafts of
every other contract (issue 19, finding 8): were their merges news to a `git:` reader, two contracts
reading `git:.` would wake each other for ever, each approval drafting the other once more. How one
contract depends on another's output is said explicitly, by a `contract:` input (docs/decisions.md).

What counts as a draft's: a commit whose trailers name a contract (`Hz-Contract: <id>`) or a draft
(`Hz-Draft: hz-…`), as the draft commit, a rebase of it, or a squash that kept its trailers carry them;
the older branch commits say it in their tag line (`hz.review.drafts.Tag`); and a commit that changes
only files some contract's `state:` target names (a squash with the reviewer's own message and edits,
which keeps no trailer: what it brings is an output, read through `contract:` where it matters).
A merge commit is a draft's when everything it
brings in is, or is a reviewer's edit of the draft on its branch (a commit above the draft commit
changing only the files the draft wrote). Trailers are what anyone can write, so this only ever
withholds a wake of this contract on its own history, never grants anything.

The check is the input's fingerprint with those commits taken out: the own commits at the top of the
branch's first-parent line (everything after the last commit by anyone else) are set aside and the
input is rebuilt from the records the tick just cached (`hz.sources.resolve.rebuilt`). Equal to what
the last turn saw means nothing else moved; a commit by anyone after the merge, or before it, leaves
a difference and wakes the contract. No clocks: a merge is recognised by what it is, not by when.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.turn.plan import Plan

MAX_OWN = 200  # own commits looked through at the top of the branch; more is no longer "just the merge"


def moved_by_drafts_only(plan: Plan, name: str, seen: str, *, slot: datetime, environ: Mapping[str, str]) -> bool:
    """Whether input `name` would still have the fingerprint `seen` (the last turn's) without the merges of
    hz drafts (this contract's and every other's) on top of the history it reads."""
    spec_list = _specs(plan, name)
    if not spec_list or not any(_local_git(spec) for spec in spec_list) or plan.root is None:
        return False
    own = _OwnCommits(plan.root, plan.agent_id, _output_patterns(plan.root, environ))
    return _fingerprint_without(plan, name, spec_list, own, slot, environ) == seen


def _specs(plan: Plan, name: str) -> list[Any]:
    from hz.sources.watch import specs_of

    inputs = getattr(getattr(getattr(plan.contract, "frontmatter", None), "hz", None), "inputs", None) or {}
    return list(specs_of(inputs[name])) if name in inputs else []


def _local_git(spec: Any) -> bool:
    """A `git:` source on this repository's checked-out history (what a merge of the draft moves)."""
    from hz.sources.gitquery import parse

    return spec.scheme == "git" and spec.target.strip() in ("", ".") and parse(spec.query, spec.uri).branch is None


def _fingerprint_without(
    plan: Plan, name: str, specs: list[Any], own: _OwnCommits, slot: datetime, environ: Mapping[str, str]
) -> str | None:
    from hz.sources.base import SourceError
    from hz.sources.cache import SourceCache
    from hz.sources.gather import watched_fingerprint
    from hz.sources.inputs import assemble
    from hz.sources.resolve import Resolved, rebuilt

    drop = own.top()
    if not drop:
        return None  # nothing of its own on top: whatever moved the input was someone else's
    cache = SourceCache.from_environ(environ)
    parts: list[tuple[Any, Resolved | SourceError]] = []
    for spec in specs:
        keep = (lambda record: str(record.get("id")) not in drop) if _local_git(spec) else (lambda record: True)
        found = rebuilt(spec, cache, slot=slot, keep=keep)
        if found is None:
            return None  # nothing cached to compare: the wake stands
        parts.append((spec, found))
    required = bool(getattr(plan.contract.frontmatter.hz.inputs[name], "required", True))
    return watched_fingerprint(plan.contract, name, assemble(parts, required=required))


def _output_patterns(root: Path, environ: Mapping[str, str]) -> tuple[re.Pattern[str], ...]:
    """The paths every contract of the repository maintains (its `state:` targets), as patterns."""
    from hz.contract.project import compile_repository
    from hz.errors import HzError
    from hz.sources.contract import target_pattern

    try:
        compiled = compile_repository(root, environ)
    except HzError:
        return ()
    found: list[re.Pattern[str]] = []
    for entry in compiled.contracts:
        outputs = getattr(getattr(getattr(entry.contract, "frontmatter", None), "hz", None), "outputs", None) or {}
        for output in outputs.values():
            target = str(output.target)
            if target.startswith("state:"):
                found.append(target_pattern(target.removeprefix("state:").lstrip("/")))
    return tuple(found)


class _OwnCommits:
    """Draft commits (this agent's, any contract's) and the merges of them, at the top of the history."""

    def __init__(self, root: Path, agent_id: str, outputs: tuple[re.Pattern[str], ...] = ()) -> None:
        self.root = root
        self.keys = (f"{agent_id}@", "hz-")  # an agent's own drafts; a team contract's drafts (`hz-<id>@…`)
        self.outputs = outputs

    def top(self) -> set[str]:
        """Ids of the own commits from HEAD down its first-parent line to the first commit of anyone else."""
        import pygit2

        try:
            repo = pygit2.Repository(str(self.root))
        except pygit2.GitError:
            return set()
        try:
            found: set[str] = set()
            commit: Any = repo.revparse_single("HEAD").peel(pygit2.Commit)
            while len(found) < MAX_OWN:
                brought = self._own_merge(repo, commit) if len(commit.parent_ids) > 1 else None
                if brought is None and not self._own(repo, commit):
                    break
                found |= {str(commit.id), *(brought or ())}
                if not commit.parent_ids:
                    break
                commit = repo[commit.parent_ids[0]]
            return found
        except (KeyError, ValueError, pygit2.GitError):  # an unborn HEAD, a shallow clone's edge
            return set()
        finally:
            repo.free()

    def _own(self, repo: Any, commit: Any) -> bool:
        from hz.review.drafts import Tag

        trailers = _trailers(commit)
        if trailers.get("Hz-Contract"):
            return True
        key = trailers.get("Hz-Draft") or getattr(Tag.parse(commit.message.split("\n", 1)[0]), "key", "")
        if key and str(key).startswith(self.keys):
            return True
        if len(commit.parent_ids) != 1 or not self.outputs:
            return False
        paths = _paths(repo, commit)  # only outputs: a squash of drafts with the reviewer's words and edits
        return bool(paths) and all(any(p.fullmatch(path) for p in self.outputs) for path in paths)

    def _own_merge(self, repo: Any, merge: Any) -> set[str] | None:
        """The commits a merge brings in (beside its first parent), when every one is own or a reviewer's
        edit of the draft; else None."""
        import pygit2

        walker = repo.walk(merge.parent_ids[1], pygit2.enums.SortMode.TOPOLOGICAL)
        walker.hide(merge.parent_ids[0])
        brought: dict[str, Any] = {}
        for commit in walker:
            if len(brought) >= MAX_OWN or len(commit.parent_ids) > 1:
                return None
            brought[str(commit.id)] = commit
        own = {cid for cid, commit in brought.items() if self._own(repo, commit)}
        drafted: set[str] = set().union(*(_paths(repo, brought[cid]) for cid in own))
        edits = (commit for cid, commit in brought.items() if cid not in own)
        if not own or not all(_edit_of(repo, commit, own, set(brought), drafted) for commit in edits):
            return None
        return set(brought)


def _edit_of(repo: Any, commit: Any, own: set[str], brought: set[str], drafted: set[str]) -> bool:
    """A reviewer's edit of the draft (the usual review before a merge): a commit above an own draft commit
    on its branch that changes only files the draft wrote. Anything else brought by the merge is news."""
    if not _paths(repo, commit) <= drafted:
        return False
    below = commit
    while below.parent_ids and str(below.parent_ids[0]) in brought:  # down the branch, to the merge base
        if str(below.parent_ids[0]) in own:
            return True
        below = repo[below.parent_ids[0]]
    return False


def _paths(repo: Any, commit: Any) -> set[str]:
    """The files `commit` changed against its first parent."""
    if not commit.parent_ids:
        return {"/"}  # a root commit wrote everything: never an edit of a draft
    diff = repo.diff(repo[commit.parent_ids[0]].tree, commit.tree)
    return {path for delta in diff.deltas for path in (delta.old_file.path, delta.new_file.path)}


def _trailers(commit: Any) -> dict[str, str]:
    """`Hz-…: value` lines anywhere in the message (the first of each key). Not only its last paragraph: a
    forge's squash of an edited draft keeps the draft's trailers in its body and ends with
    `Co-authored-by:` lines, and the approval watch reads them there too (hz.review.approval_watch)."""
    found: dict[str, str] = {}
    for line in commit.message.splitlines():
        key, sep, value = line.strip().partition(":")
        if sep and key.startswith("Hz-") and " " not in key and value.strip():
            found.setdefault(key, value.strip())
    return found
