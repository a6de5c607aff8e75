"""Which commits of `hz/state` a lint reads: the whole branch, or only what came after a tip checked before.

A team's branch grows by every event it ever held, so linting all of it on every push costs what the history
costs. The commits since a tip that was already linted are all that a push can have added: each commit is
judged against its parent's tree and the lease chains (which are refs, read whole either way), so leaving
older commits out changes nothing about how a new one is judged. When that tip is missing, unknown to this
clone, or not an ancestor of the branch (history rewritten), the whole branch is linted instead: never less.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hz.diagnostic import Diagnostic
from hz.gitstate.odb import objects_of

if TYPE_CHECKING:
    import pygit2

    from hz.gitstate.lint import LintContext
    from hz.gitstate.odb import Repo


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


def lint_counted(repo: Repo, base: str | None, tip: str, context: LintContext) -> LintRun:
    """Lint the commits reachable from `tip` and not from `base`, oldest first, counting what was read. One
    reader for the whole range: the trees a commit's check parsed are the ones its count reads again."""
    from hz.gitstate.layout import is_event_path
    from hz.gitstate.lint import check_commit

    objects = objects_of(repo)
    found: list[Diagnostic] = []
    commits = events = 0
    for oid, parents in objects.commits(tip, base):
        found.extend(check_commit(objects, oid, context))
        commits += 1
        commit, parent = objects.commit(oid), objects.commit(parents[0]) if parents else None
        changes = objects.diff(parent.tree if parent is not None else None, commit.tree) if commit else []
        events += sum(1 for change in changes if change.status == "A" and is_event_path(change.path))
    return LintRun(found, commits, events)


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


def cut_within(repo: pygit2.Repository, base: str, tip: str) -> bool:
    """Whether a commit after `base`, up to `tip`, is a shallow boundary of this clone (its parents never
    fetched): the range would be judged without what came before that commit. `base` itself may be one:
    only its tree is read, as the parent of the first commit after it."""
    from hz.sources.gitshallow import boundary_ids

    return any(
        (edge == tip or repo.descendant_of(tip, edge)) and not repo.descendant_of(base, edge)
        for edge in boundary_ids(repo) - {base}
    )
