"""`git:` — this repository's history (`git:` or `git:.`) or another local repository's (`git:<path>`).

Commits whose committer time lies in the input's window, newest first from one `git log` process read
as a stream (`hz.sources.gitlog`: git works out the paths each commit changed, at git's speed), and
filtered by the query (`hz.sources.gitquery`). The walk stops at the first commit older than the window,
so a commit whose clock ran behind its parent's can be missed: the same history always gives the same
answer. Facets: `commits` (non-merge commits: id, subject, author, e-mail, time, the paths they changed
against their first parent, down to two levels), `merged` (merges on the first-parent line of the walked
branch, with the tip they merged), `authors` (the sorted unique names of every commit of the window the
query keeps, merges included, whether or not they are on the first-parent line), `tags` (tags whose commit
is in the window). Works offline on any full clone: only local objects are read.

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

import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.sources import gitlog, gitshallow
from hz.sources.base import FetchContext, Fetched, SourceError, SourceSpec
from hz.sources.canonical import escaped_name, one_line
from hz.sources.gitlog import LogCommit
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
    read = _read(path, spec, query, window, ctx.now, wanted, ctx)
    if read.boundary:
        why = _deepen(path, ctx, read, window)
        if why is None:
            read = _read(path, spec, query, window, ctx.now, wanted, ctx)
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
        facets["authors"] = records.get("authors") or _authors_of(records)
    if "tags" in wanted:
        facets["tags"] = records["tags"]
    marker = records.get(TRUNCATED)
    if marker is not None:  # first, where the missing history would be: the model reads it before the rest
        facets.update({name: [{TRUNCATED: marker}, *facets[name]] for name in _WALKED if name in facets})
    return facets


def _authors_of(records: Mapping[str, Any]) -> list[str]:
    """The authors a snapshot from before hz kept them apart lists: those of its commits and merges."""
    return sorted({c["author"] for c in records["commits"]} | {m["author"] for m in records["merged"]})


@dataclass
class _Read:
    records: dict[str, Any]
    tip: str = ""
    boundary: list[tuple[str, int]] = field(default_factory=list)  # (id, time) of commits missing parents


def _read(
    path: Path, spec: SourceSpec, query: GitQuery, window: Window, now: datetime, wanted: set[str], ctx: FetchContext
) -> _Read:
    repo = _open(spec, path)
    try:
        tip = _tip(repo, spec, query)
        return _history(repo, path, tip, query, window, now, wanted, ctx.environ)
    finally:
        repo.free()


def _history(
    repo: Any, path: Path, tip: Any, query: GitQuery, window: Window, now: datetime, wanted: set[str],
    environ: Mapping[str, str],
) -> _Read:  # fmt: skip
    read = _Read({}, str(tip))
    if wanted & {"commits", "merged", "authors"}:
        walk = _Walk(repo, path, window, now.timestamp(), environ)
        read.records["commits"], read.records["merged"] = walk.run(tip, query)
        read.records["authors"] = sorted(walk.authors)
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
    """One walk of the window, from one `git log` (`hz.sources.gitlog`): the commits and merges the query
    keeps, every author of the window, and the shallow boundary met."""

    def __init__(self, repo: Any, path: Path, window: Window, now: float, environ: Mapping[str, str]) -> None:
        self.path, self.window, self.now, self.environ = path, window, now, environ
        self.shallow = gitshallow.boundary_ids(repo)  # a file read, no git process; empty for a whole clone
        self.boundary: list[tuple[str, int]] = []
        self.authors: set[str] = set()

    def run(self, tip: Any, query: GitQuery) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        commits: list[dict[str, Any]] = []
        merges: list[dict[str, Any]] = []
        first_parents: dict[str, str] = {}  # every commit read -> its first parent: the first-parent line
        for commit, future in self._in_window(str(tip), first_parents):
            cut = commit.id in self.shallow
            if cut:
                self.boundary.append((commit.id, commit.time))  # whatever the query keeps
            author, email = _text(commit.author), _text(commit.email)
            if query.authors and not query.wants_author(author, email):
                continue
            if cut:  # its parent is missing: what it changed is unknown
                paths: list[str] = []
            elif query.paths:
                named = [_name(p) for p in commit.paths]
                if not any(query.wants_path(p) for p in named):
                    continue
                paths = sorted({"/".join(p.split("/", _DEPTH)[:_DEPTH]) for p in named})
            else:  # only the first two levels are kept: decode just those
                paths = sorted([_name(p) for p in {b"/".join(p.split(b"/", _DEPTH)[:_DEPTH]) for p in commit.paths}])
            if cut and query.paths:
                continue
            self.authors.add(author)
            record = _record(commit, author, email, paths, future)
            if len(commit.parents) > 1:
                merges.append({**record, "merged": commit.parents[1]})
            else:
                commits.append(record)
        line = _first_parent_line(str(tip), first_parents)
        merged = [m for m in merges if m["id"] in line]
        key = lambda r: (r["time"], r["id"])  # noqa: E731
        return sorted(commits, key=key), sorted(merged, key=key)

    def _in_window(self, tip: str, first_parents: dict[str, str]) -> Iterator[tuple[LogCommit, bool]]:
        """(commit, dated ahead of the clock) for each commit of the window, newest first; the walk stops
        at the first commit older than the window."""
        start = self.window.start.timestamp() if self.window.start is not None else None
        end = self.window.end.timestamp()
        with gitlog.commits(self.path, tip, self.environ) as log:
            for commit in log:
                first_parents[commit.id] = commit.parents[0] if commit.parents else ""
                if commit.time > self.now:
                    yield commit, True
                elif start is not None and commit.time < start:
                    return
                elif commit.time < end:
                    yield commit, False


def _first_parent_line(tip: str, first_parents: Mapping[str, str]) -> set[str]:
    """The commits from `tip` down its first parents, as far as the walk read."""
    line: set[str] = set()
    commit = tip
    while commit in first_parents and commit not in line:
        line.add(commit)
        commit = first_parents[commit]
    return line


def _record(commit: LogCommit, author: str, email: str, paths: list[str], future: bool) -> dict[str, Any]:
    """`paths`: sorted, already cut to their first two levels."""
    record = {
        "id": commit.id,
        "subject": _subject(commit.subject),
        "author": author,
        "email": email,
        "time": _iso(commit.time),
        "paths": paths,
    }
    return {**record, "future": True} if future else record  # absent otherwise: old fingerprints hold


def _name(path: bytes) -> str:
    """A path as git listed it, bytes that are not UTF-8 escaped (`hz.sources.canonical.escaped_name`)."""
    return path.decode("ascii") if path.isascii() else escaped_name(os.fsdecode(path))


def _subject(line: bytes) -> str:
    """The subject as `one_line` makes it; for ASCII that is only its whitespace folded (the common case,
    a tenth of the cost)."""
    return " ".join(line.decode("ascii").split()) if line.isascii() else one_line(_text(line))


_LAST_STAMP = 253402300799  # 9999-12-31T23:59:59Z: past it, `_moment` clamps


_DAYS: dict[int, str] = {}  # day number -> "YYYY-MM-DDT": a window of ten years holds 3,653 of them


def _iso(stamp: int) -> str:
    """`iso(_moment(stamp))`, formatted directly for the years 1970 to 9999 (a day's date is made once)."""
    if not 0 <= stamp <= _LAST_STAMP:
        return iso(_moment(stamp))
    day, seconds = divmod(stamp, 86400)
    date = _DAYS.get(day)
    if date is None:
        if len(_DAYS) > 100_000:  # a daemon reading many far-apart histories: start over
            _DAYS.clear()
        t = time.gmtime(day * 86400)
        date = _DAYS.setdefault(day, f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T")
    hours, rest = divmod(seconds, 3600)
    return f"{date}{hours:02d}:{rest // 60:02d}:{rest % 60:02d}Z"


def _text(raw: bytes) -> str:
    """A field of a commit as git gave it (UTF-8, converted from the encoding the commit names where git
    knows it), undecodable bytes as U+FFFD as pygit2 does."""
    return raw.decode("utf-8", "replace")


def _moment(stamp: int) -> datetime:
    """A commit time as a UTC datetime; one past the calendar (git stores any number) is its last or first second."""
    try:
        return datetime.fromtimestamp(stamp, UTC)
    except (ValueError, OverflowError, OSError):
        return (datetime.max if stamp > 0 else datetime.min).replace(tzinfo=UTC)


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
