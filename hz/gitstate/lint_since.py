"""Which commits of `hz/state` a lint reads: the whole branch, or only what came after a tip checked before.

A team's branch grows by every event it ever held, so linting all of it on every push costs what the history
costs. The commits since a tip that was already linted are all that a push can have added: each commit is
judged against its parent's tree and the lease chains (which are refs, read whole either way), so leaving
older commits out changes nothing about how a new one is judged. When that tip is missing, unknown to this
clone, or not an ancestor of the branch (history rewritten), the whole branch is linted instead: never less.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hz.diagnostic import Diagnostic

if TYPE_CHECKING:
    import pygit2

    from hz.gitstate.lint import LintContext


@dataclass(frozen=True)
class LintRun:
    """What one lint found and how much it read (the commits and the event files they add)."""

    found: list[Diagnostic]
    commits: int
    events: int


def since_base(repo: pygit2.Repository, rev: str, tip: str) -> tuple[str | None, str | None]:
    """The commit to start after, or None and why the whole branch is linted instead."""
    import pygit2

    if not rev.strip("0"):  # '' or git's all-zeros: the push created the branch
        return None, "no earlier tip"
    try:
        base = str(repo.revparse_single(rev).peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError):
        return None, f"{rev} is not a commit in this clone"
    if base != tip and not repo.descendant_of(tip, base):
        return None, f"{rev} is not an ancestor of the tip"
    return base, None


def lint_counted(repo: pygit2.Repository, base: str | None, tip: str, context: LintContext) -> LintRun:
    """Lint the commits reachable from `tip` and not from `base`, oldest first, counting what was read."""
    from hz.gitstate.lint import check_commit

    found: list[Diagnostic] = []
    commits = events = 0
    for commit in _walk(repo, base, tip):
        found.extend(check_commit(repo, commit, context))
        commits += 1
        events += _added(repo, commit)
    return LintRun(found, commits, events)


def _walk(repo: pygit2.Repository, base: str | None, tip: str) -> Iterator[Any]:
    import pygit2

    walker = repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    if base is not None:
        walker.hide(base)
    yield from walker


def _added(repo: pygit2.Repository, commit: Any) -> int:
    from hz.gitstate.layout import is_event_path

    parent: Any = commit.parents[0].tree if commit.parents else repo[repo.TreeBuilder().write()]
    diff: Any = repo.diff(parent, commit.tree)
    return sum(1 for delta in diff.deltas if delta.status_char() == "A" and is_event_path(delta.new_file.path))


CUT = (
    "this clone holds hz/state and the leases from their newest commits on, without the history before them "
    "(a tick's first fetch in a fresh clone takes only their tips): the lint would judge the oldest commit here "
    "without what came before it"
)
CUT_HINT = (
    "lint where the whole branch is (the state-lint workflow, a member's clone), or fetch it here: git fetch "
    "--unshallow origin '+refs/heads/hz/state:refs/remotes/origin/hz/state' '+refs/hz/lease/*:refs/hz/lease/*'"
)


def cut_short(repo: pygit2.Repository, tip: str) -> bool:
    """Whether this clone's history of hz/state (from `tip`) or of a lease chain it holds ends at a shallow
    boundary (hz.review.sync.take_tips): a commit there looks like the branch's first and every token before
    it looks never given, so a lint would report what is not wrong and could not see what is."""
    from hz.gitstate.layout import LEASE_PREFIX
    from hz.gitstate.lint_fence import SYNC_PREFIX
    from hz.sources.gitshallow import boundary_ids

    cut = boundary_ids(repo)
    if not cut:
        return False
    lease_part = "/" + LEASE_PREFIX.removeprefix("refs/")
    tips = {tip}
    for name in repo.references:
        if name.startswith(LEASE_PREFIX) or (name.startswith(SYNC_PREFIX) and lease_part in name):
            tips.add(str(repo.references[name].resolve().target))
    return any(top == edge or repo.descendant_of(top, edge) for top in tips for edge in cut)
