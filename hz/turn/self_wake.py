"""No self-wakes: an input that moved only by the merge of the contract's own draft is not `source-changed`.

A contract that reads this repository's history (`git:` / `git:.`) drafts on a branch; when the review
merges that draft, the history moves, and without this check the contract would wake on its own
approved output and draft again, every time (issue 11, finding 5).

What counts as its own: a commit whose trailers name this contract (`Hz-Contract: <contract id>`) or
one of its drafts (`Hz-Draft: <key>`, a key of this agent or of the team contract, `hz-<id>@…`), as the
draft commit, a rebase of it, or a squash that kept its trailers carry them; the older branch commits
say it in their tag line (`hz.review.drafts.Tag`). A merge commit is its own when everything it
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

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.turn.plan import Plan

MAX_OWN = 200  # own commits looked through at the top of the branch; more is no longer "just the merge"


def moved_by_own_draft_only(plan: Plan, name: str, seen: str, *, slot: datetime, environ: Mapping[str, str]) -> bool:
    """Whether input `name` would still have the fingerprint `seen` (the last turn's) without the merges of
    this contract's own drafts on top of the history it reads."""
    contract_id = getattr(getattr(plan.contract, "frontmatter", None), "id", None)
    spec_list = _specs(plan, name)
    if not spec_list or not any(_local_git(spec) for spec in spec_list) or plan.root is None:
        return False
    own = _OwnCommits(plan.root, plan.agent_id, str(contract_id) if contract_id else None)
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


class _OwnCommits:
    """This contract's own draft commits and the merges of them, at the top of the checked-out history."""

    def __init__(self, root: Path, agent_id: str, contract_id: str | None) -> None:
        self.root = root
        self.keys = (f"{agent_id}@", *((f"hz-{contract_id}@",) if contract_id else ()))
        self.contract_id = contract_id

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
                if brought is None and not self._own(commit):
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

    def _own(self, commit: Any) -> bool:
        from hz.review.drafts import Tag

        trailers = _trailers(commit)
        if self.contract_id is not None and trailers.get("Hz-Contract") == self.contract_id:
            return True
        key = trailers.get("Hz-Draft") or getattr(Tag.parse(commit.message.split("\n", 1)[0]), "key", "")
        return bool(key) and str(key).startswith(self.keys)

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
        own = {cid for cid, commit in brought.items() if self._own(commit)}
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
