"""`git:` — this repository's history (`git:` or `git:.`) or another local repository's (`git:<path>`).

Commits whose committer time lies in the input's window, walked newest first with pygit2 (no
subprocess per commit) and filtered by the query (`hz.sources.gitquery`). The walk stops at the first
commit older than the window, so a commit whose clock ran behind its parent's can be missed: the same
history always gives the same answer. Facets: `commits` (non-merge commits: id, subject, author, e-mail,
time, the paths they touched down to two levels), `merged` (merges on the first-parent line of the
walked branch, with the tip they merged), `authors` (sorted unique names), `tags` (tags whose commit is in
the window). Works offline on any full clone: only local objects are read.

A commit dated later than the fetching clock (`ctx.now`) cannot be dated truly: its committer's clock ran
ahead. Leaving it out would hide work that exists, so it is listed with `future: true` whenever the walk
reaches it (it is the tip, or a commit made on top of it is in the window), until that clock reaches its
date; from then on its date places it like any commit. A commit dated between the slot and `now` was
made after the slot and waits for a later window, as before: for a history whose dates are true the
answer is a function of the history and the slot alone, and the snapshot staged for a slot keeps what
that slot saw.
A shallow clone is deepened or reported (`hz.sources.gitshallow`): when the window reaches history the
clone does not have, every facet of the walk starts with a `{"truncated": …}` record naming the
boundary. File and tag names that are not UTF-8 are carried escaped (`hz.sources.canonical.escaped_name`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.sources import gitshallow
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec
from hz.sources.canonical import escaped_name, one_line
from hz.sources.gitquery import FACETS, GitQuery, parse
from hz.sources.window import Window, iso

REMOTE = False
_DEPTH = 2  # how deep `paths` of a commit go (hz/sources rather than every file)
TRUNCATED = "truncated"  # the records' key, and the marker's, of a window a shallow clone cannot fill
_WALKED = ("commits", "merged", "authors")  # the facets made by the walk, which a boundary cuts short


def fetch(spec: SourceSpec, ctx: FetchContext) -> Fetched:
    query = parse(spec.query, spec.uri)
    window = Window.of(ctx.slot, spec.window)
    wanted = set(_wanted(spec, query))
    path = _path(spec, ctx.root)
    read = _read(path, spec, query, window, ctx.now, wanted)
    if read.boundary:
        why = _deepen(path, ctx, read, window)
        if why is None:
            read = _read(path, spec, query, window, ctx.now, wanted)
            why = gitshallow.STILL_SHORT if read.boundary else None
        if why is not None:
            read.records[TRUNCATED] = _marker(read.boundary, why)
    return Fetched(read.records, covers=(window.start, window.end))


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
    marker = records.get(TRUNCATED)
    if marker is not None:  # first, where the missing history would be: the model reads it before the rest
        facets.update({name: [{TRUNCATED: marker}, *facets[name]] for name in _WALKED if name in facets})
    return facets


@dataclass
class _Read:
    records: dict[str, Any]
    tip: str = ""
    boundary: list[tuple[str, int]] = field(default_factory=list)  # (id, time) of commits missing parents


def _read(path: Path, spec: SourceSpec, query: GitQuery, window: Window, now: datetime, wanted: set[str]) -> _Read:
    repo = _open(spec, path)
    try:
        tip = _tip(repo, spec, query)
        try:
            return _history(repo, tip, query, window, now, wanted)
        except KeyError:  # a parent object is missing: a linked worktree of a shallow clone (see below)
            pass
    finally:
        repo.free()
    # libgit2 applies a shallow clone's boundary only when opened at the repository itself, not at a
    # linked worktree of it (`git worktree add`), so the walk there runs into a parent never fetched.
    # The repository the worktree shares holds the same objects and refs: walk there from the same tip.
    shared = gitshallow.shared_repository(path)
    if shared is not None:
        try:
            return _history(shared, tip, query, window, now, wanted)
        except KeyError:
            pass
        finally:
            shared.free()
    raise SourceError("malformed", f"{spec.uri}: the history misses commits it refers to", hint="git fsck names them")


def _history(repo: Any, tip: Any, query: GitQuery, window: Window, now: datetime, wanted: set[str]) -> _Read:
    import pygit2

    read = _Read({}, str(tip))
    if wanted & {"commits", "merged", "authors"}:
        walk = _Walk(repo, window, now.timestamp(), pygit2)
        read.records["commits"], read.records["merged"] = walk.run(tip, query)
        read.boundary = walk.boundary
    if "tags" in wanted:
        read.records["tags"] = _tags(repo, window, now.timestamp())
    return read


def _deepen(path: Path, ctx: FetchContext, read: _Read, window: Window) -> str | None:
    """Why the clone could not be deepened for the window; None when it was."""
    import pygit2

    if ctx.root is None or path.resolve() != ctx.root.resolve():
        return gitshallow.NOT_OURS
    repo = pygit2.Repository(str(path))
    try:
        remote = gitshallow.remote_of(repo)
    finally:
        repo.free()
    if remote is None:
        return gitshallow.NO_REMOTE
    if not gitshallow.deepen(path, remote, read.tip, window.start, ctx.environ):
        return gitshallow.FETCH_FAILED
    return None


def _marker(boundary: list[tuple[str, int]], why: str) -> dict[str, Any]:
    """What a truncated window says: since when it is complete, the commits it ends at, and why."""
    newest = max(time for _, time in boundary)
    return {
        "complete_since": iso(_moment(newest)),
        "boundary": sorted(oid for oid, _ in boundary),
        "why": why,
        "hint": gitshallow.HINT,
    }


def _wanted(spec: SourceSpec, query: GitQuery) -> tuple[str, ...]:
    return query.facets or tuple(f for f in spec.facets if f in FACETS) or FACETS


def _path(spec: SourceSpec, root: Path | None) -> Path:
    path = Path(spec.target.strip() or ".")
    if path.is_absolute():
        return path
    if root is None:
        raise SourceError("bad-source", f"{spec.uri} needs a repository", hint="run hz inside the repository")
    return root / path


def _open(spec: SourceSpec, path: Path) -> Any:
    import pygit2

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


class _Walk:
    """One walk of the window: the commits and merges the query keeps, and the shallow boundary met."""

    def __init__(self, repo: Any, window: Window, now: float, pygit2: Any) -> None:
        self.repo, self.window, self.now, self.pygit2 = repo, window, now, pygit2
        self.shallow = bool(repo.is_shallow)  # libgit2 reads it from the repository: no git process
        self.boundary: list[tuple[str, int]] = []

    def run(self, tip: Any, query: GitQuery) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        first_parent = _first_parent_line(self.repo, tip, self.window)
        commits: list[dict[str, Any]] = []
        merged: list[dict[str, Any]] = []
        trees = _Trees(self.repo)
        for commit, future in self._in_window(tip):
            cut = self.shallow and gitshallow.is_boundary(commit)
            if cut:
                self.boundary.append((str(commit.id), commit.commit_time))  # whatever the query keeps
            author, email = _text(commit, commit.author.raw_name), _text(commit, commit.author.raw_email)
            if not query.wants_author(author, email):
                continue
            paths = [] if cut else _changed(trees, commit)  # its parent is missing: what it changed is unknown
            if query.paths and not any(query.wants_path(p) for p in paths):
                continue
            record = _record(commit, author, email, paths, future)
            if len(commit.parent_ids) > 1:
                if str(commit.id) in first_parent:
                    merged.append({**record, "merged": str(commit.parent_ids[1])})
            else:
                commits.append(record)
        key = lambda r: (r["time"], r["id"])  # noqa: E731
        return sorted(commits, key=key), sorted(merged, key=key)

    def _in_window(self, tip: Any) -> Iterator[tuple[Any, bool]]:
        """(commit, dated ahead of the clock) for each commit of the window, newest first."""
        start = self.window.start.timestamp() if self.window.start is not None else None
        end = self.window.end.timestamp()
        for commit in self.repo.walk(tip, self.pygit2.enums.SortMode.TIME):
            if commit.commit_time > self.now:
                yield commit, True
            elif start is not None and commit.commit_time < start:
                return
            elif commit.commit_time < end:
                yield commit, False


def _first_parent_line(repo: Any, tip: Any, window: Window) -> set[str]:
    start = window.start.timestamp() if window.start is not None else None
    line: set[str] = set()
    commit = repo[tip]
    while True:
        line.add(str(commit.id))
        if (start is not None and commit.commit_time < start) or not commit.parent_ids:
            return line
        commit = repo[commit.parent_ids[0]]


def _record(commit: Any, author: str, email: str, paths: list[str], future: bool) -> dict[str, Any]:
    record = {
        "id": str(commit.id),
        "subject": one_line(_text(commit, commit.raw_message).split("\n", 1)[0]),
        "author": author,
        "email": email,
        "time": iso(_moment(commit.commit_time)),
        "paths": sorted({"/".join(p.split("/")[:_DEPTH]) for p in paths}),
    }
    return {**record, "future": True} if future else record  # absent otherwise: old fingerprints hold


def _text(commit: Any, raw: bytes) -> str:
    """A field of a commit in the encoding its header names (UTF-8 when none), undecodable bytes as U+FFFD
    as pygit2 does; an encoding Python does not know (git stores any name) reads as UTF-8, never a crash."""
    try:
        return raw.decode(commit.message_encoding or "utf-8", "replace")
    except LookupError:
        return raw.decode("utf-8", "replace")


def _moment(stamp: int) -> datetime:
    """A commit time as a UTC datetime; one past the calendar (git stores any number) is its last or first second."""
    try:
        return datetime.fromtimestamp(stamp, UTC)
    except (ValueError, OverflowError, OSError):
        return (datetime.max if stamp > 0 else datetime.min).replace(tzinfo=UTC)


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
            out.append(escaped_name(path))


def _tags(repo: Any, window: Window, now: float) -> list[dict[str, Any]]:
    import pygit2

    tags: list[dict[str, Any]] = []
    for ref in repo.references.iterator():  # objects, not names: a name that is not UTF-8 cannot be looked up
        if not ref.name.startswith("refs/tags/"):
            continue
        try:
            commit = ref.peel(pygit2.Commit)
        except (ValueError, KeyError, pygit2.GitError):  # a tag of a tree or blob, or of a commit not fetched
            continue
        when = _moment(commit.commit_time)
        name = escaped_name(ref.name.removeprefix("refs/tags/"))
        tag = {"name": name, "target": str(commit.id), "time": iso(when)}
        if commit.commit_time > now:
            tags.append({**tag, "future": True})
        elif when in window:
            tags.append(tag)
    return sorted(tags, key=lambda t: (t["time"], t["name"]))
