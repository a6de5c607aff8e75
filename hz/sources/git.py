"""`git:` — this repository's history (`git:` or `git:.`) or another local repository's (`git:<path>`).

Commits whose committer time lies in the input's window, walked newest first with pygit2 (no
subprocess per commit) and filtered by the query (`hz.sources.gitquery`). The walk stops at the first
commit older than the window, so a commit whose clock ran behind its parent's can be missed: the same
history always gives the same answer. Facets: `commits` (non-merge commits: id, subject, author, e-mail,
time, the paths they touched down to two levels), `merged` (merges on the first-parent line of the
walked branch, with the tip they merged), `authors` (sorted unique names), `tags` (tags whose commit is in
the window). Works offline on any clone: only local objects are read.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec
from hz.sources.canonical import one_line
from hz.sources.gitquery import FACETS, GitQuery, parse
from hz.sources.window import Window, iso

REMOTE = False
_DEPTH = 2  # how deep `paths` of a commit go (hz/sources rather than every file)


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    import pygit2

    query = parse(spec.query, spec.uri)
    window = Window.of(ctx.slot, spec.window)
    repo = _open(spec, ctx.root)
    try:
        tip = _tip(repo, spec, query)
        wanted = set(_wanted(spec, query))
        records: dict[str, Any] = {}
        if wanted & {"commits", "merged", "authors"}:
            commits, merged = _walk(repo, tip, window, query, pygit2)
            records["commits"], records["merged"] = commits, merged
        if "tags" in wanted:
            records["tags"] = _tags(repo, window)
    finally:
        repo.free()
    return Fetched(records, covers=(window.start, window.end))


def build(spec: SourceSpec, records: Any, window: Window) -> dict[str, Any]:
    wanted = _wanted(spec, parse(spec.query, spec.uri))
    facets: dict[str, Any] = {}
    if "commits" in wanted:
        facets["commits"] = records["commits"]
    if "merged" in wanted:
        facets["merged"] = records["merged"]
    if "authors" in wanted:
        facets["authors"] = sorted({c["author"] for c in records["commits"]} | {m["author"] for m in records["merged"]})
    if "tags" in wanted:
        facets["tags"] = records["tags"]
    return facets


def _wanted(spec: SourceSpec, query: GitQuery) -> tuple[str, ...]:
    return query.facets or tuple(f for f in spec.facets if f in FACETS) or FACETS


def _open(spec: SourceSpec, root: Path | None) -> Any:
    import pygit2

    from hz.contract.sourceshape import refuse_shape

    refuse_shape(spec.uri)
    where = spec.target.strip() or "."
    path = Path(where)
    if not path.is_absolute():
        if root is None:
            raise SourceError("bad-source", f"{spec.uri} needs a repository", hint="run hz inside the repository")
        path = root / path
    try:
        return pygit2.Repository(str(path))
    except pygit2.GitError:
        raise SourceError("not-found", f"{spec.uri}: no git repository at {path}") from None


def _tip(repo: Any, spec: SourceSpec, query: GitQuery) -> Any:
    names = ("HEAD",) if query.branch is None else (f"refs/heads/{query.branch}", f"refs/remotes/origin/{query.branch}")
    import pygit2

    for name in names:
        try:
            return repo.revparse_single(name).peel(pygit2.Commit).id
        except (KeyError, ValueError, pygit2.GitError):  # unknown name, unborn HEAD
            continue
    if query.branch is None:
        raise SourceError("not-found", f"{spec.uri}: the repository has no HEAD", hint="commit something first")
    raise SourceError(
        "not-found",
        f"{spec.uri}: the repository has no branch {query.branch!r}",
        hint="check branch: in the input's query; `git branch -a` lists the branches of this clone "
        "(a branch only on the remote needs a `git fetch` first)",
    )


def _walk(
    repo: Any, tip: Any, window: Window, query: GitQuery, pygit2: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    first_parent = _first_parent_line(repo, tip, window)
    commits: list[dict[str, Any]] = []
    merged: list[dict[str, Any]] = []
    trees = _Trees(repo)
    for commit in _in_window(repo, tip, window, pygit2):
        if not query.wants_author(commit.author.name, commit.author.email):
            continue
        paths = _changed(trees, commit)
        if query.paths and not any(query.wants_path(p) for p in paths):
            continue
        record = _record(commit, paths)
        if len(commit.parent_ids) > 1:
            if str(commit.id) in first_parent:
                merged.append({**record, "merged": str(commit.parent_ids[1])})
        else:
            commits.append(record)
    key = lambda r: (r["time"], r["id"])  # noqa: E731
    return sorted(commits, key=key), sorted(merged, key=key)


def _in_window(repo: Any, tip: Any, window: Window, pygit2: Any) -> Iterator[Any]:
    start = window.start.timestamp() if window.start is not None else None
    end = window.end.timestamp()
    for commit in repo.walk(tip, pygit2.enums.SortMode.TIME):
        if start is not None and commit.commit_time < start:
            return
        if commit.commit_time < end:
            yield commit


def _first_parent_line(repo: Any, tip: Any, window: Window) -> set[str]:
    start = window.start.timestamp() if window.start is not None else None
    line: set[str] = set()
    commit = repo[tip]
    while True:
        line.add(str(commit.id))
        if (start is not None and commit.commit_time < start) or not commit.parent_ids:
            return line
        commit = repo[commit.parent_ids[0]]


def _record(commit: Any, paths: list[str]) -> dict[str, Any]:
    return {
        "id": str(commit.id),
        "subject": one_line(commit.message.split("\n", 1)[0]),
        "author": commit.author.name,
        "email": commit.author.email,
        "time": iso(datetime.fromtimestamp(commit.commit_time, UTC)),
        "paths": sorted({"/".join(p.split("/")[:_DEPTH]) for p in paths}),
    }


def _changed(trees: _Trees, commit: Any) -> list[str]:
    """Every path the commit changed against its first parent (the empty tree for a root commit)."""
    parent_tree = trees.repo[commit.parent_ids[0]].tree_id if commit.parent_ids else None
    out: list[str] = []
    _diff_trees(trees, commit.tree_id, parent_tree, "", out)
    return out


class _Trees:
    """Tree listings by id, kept for the last few hundred trees: a walk lists each parent's trees once.

    Consecutive commits share most of their trees, so the listing made for a commit's parent is reused
    when the walk reaches that parent.
    """

    LIMIT = 512

    def __init__(self, repo: Any) -> None:
        self.repo = repo
        self.memo: dict[Any, dict[str, tuple[Any, bool]]] = {}

    def entries(self, oid: Any) -> dict[str, tuple[Any, bool]]:
        if oid is None:
            return {}
        hit = self.memo.get(oid)
        if hit is None:
            hit = {e.name: (e.id, e.type_str == "tree") for e in self.repo[oid]}
            if len(self.memo) >= self.LIMIT:
                del self.memo[next(iter(self.memo))]
            self.memo[oid] = hit
        return hit


def _diff_trees(trees: _Trees, new: Any, old: Any, prefix: str, out: list[str]) -> None:
    """Descend only into subtrees whose ids differ: cost grows with the change, not the tree."""
    new_entries, old_entries = trees.entries(new), trees.entries(old)
    differing = {name for name, _ in new_entries.items() ^ old_entries.items()}  # set algebra in C
    for name in sorted(differing):
        a, b = new_entries.get(name), old_entries.get(name)
        path = f"{prefix}{name}"
        a_tree = a[0] if a is not None and a[1] else None
        b_tree = b[0] if b is not None and b[1] else None
        if a_tree is not None or b_tree is not None:
            _diff_trees(trees, a_tree, b_tree, f"{path}/", out)
        if (a is not None and not a[1]) or (b is not None and not b[1]):
            out.append(path)


def _tags(repo: Any, window: Window) -> list[dict[str, Any]]:
    import pygit2

    tags: list[dict[str, Any]] = []
    for ref in repo.references:
        if not ref.startswith("refs/tags/"):
            continue
        try:
            commit = repo.revparse_single(ref).peel(pygit2.Commit)
        except (ValueError, pygit2.GitError, pygit2.InvalidSpecError):  # a tag of a tree or blob marks no release
            continue
        when = datetime.fromtimestamp(commit.commit_time, UTC)
        if when in window:
            tags.append({"name": ref.removeprefix("refs/tags/"), "target": str(commit.id), "time": iso(when)})
    return sorted(tags, key=lambda t: (t["time"], t["name"]))
