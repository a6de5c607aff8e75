"""Git objects read by id: the small interface the state lint, the lease lint and the hook read through.

Two readers implement it. `PygitObjects` wraps a pygit2 repository for the commands that have one open
already; `hz.gitstate.catfile.CatFile` asks one `git cat-file --batch-command` process and `git rev-list`,
so the pre-receive hook never imports pygit2 (about 75 ms of a fresh process). Everything above this
module sees raw objects only: a type and bytes, a tree as its entries, a commit as its tree and parents,
and which commits a range holds. Trees are parsed here once per id and kept for the reader's lifetime
(bounded), since a commit's diff, its layout walk and its receipts read the same few trees.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TypeAlias

    import pygit2

    Repo: TypeAlias = "pygit2.Repository | Objects"  # what the lints accept: a reader, or a repository to wrap

TREE_MODE = 0o040000
GITLINK_MODE = 0o160000
MAX_TREES = 8192  # parsed trees kept at once: a whole-branch lint reads each new tree a few times, then never
MISSING = ("missing", b"")


class Entry:
    """One entry of a tree: its raw name, its mode and the id of what it names.

    Plain classes with slots, not dataclasses, here: the hook imports this module on every push, and
    building a dataclass costs about a millisecond of that start each."""

    __slots__ = ("mode", "name", "oid")

    def __init__(self, name: bytes, mode: int, oid: str) -> None:
        self.name, self.mode, self.oid = name, mode, oid

    def __repr__(self) -> str:
        return f"Entry({self.name!r}, {self.mode:o}, {self.oid})"

    @property
    def kind(self) -> str:
        return "tree" if self.mode == TREE_MODE else "commit" if self.mode == GITLINK_MODE else "blob"

    @property
    def text(self) -> str:
        return self.name.decode("utf-8", "replace")


class Tree:
    """A parsed tree: its entries in git's order, and by name. `rows` are the raw entries (mode as git wrote
    it, name, id bytes); `Entry` objects are made only when asked for, since a diff compares rows and
    most rows of a tree are the same on both sides."""

    __slots__ = ("_by_name", "_entries", "oid", "rows")

    def __init__(self, oid: str, rows: list[tuple[bytes, bytes, bytes]]) -> None:
        self.oid = oid
        self.rows = rows
        self._entries: list[Entry] | None = None
        self._by_name: dict[bytes, Entry] | None = None

    @property
    def entries(self) -> list[Entry]:
        if self._entries is None:
            self._entries = [Entry(name, int(mode, 8), oid.hex()) for mode, name, oid in self.rows]
        return self._entries

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def get(self, name: str | bytes) -> Entry | None:
        if self._by_name is None:
            self._by_name = {entry.name: entry for entry in self.entries}
        return self._by_name.get(name.encode() if isinstance(name, str) else name)


class Commit:
    """A commit as its bytes say: the raw object, its tree and its parents (in order)."""

    __slots__ = ("oid", "parents", "raw", "tree")

    def __init__(self, oid: str, raw: bytes, tree: str, parents: tuple[str, ...]) -> None:
        self.oid, self.raw, self.tree, self.parents = oid, raw, tree, parents

    @property
    def message(self) -> bytes:
        return self.raw.partition(b"\n\n")[2]


class Change:
    """One file a diff of two trees shows: added (A), deleted (D) or modified (M), with both sides' ids."""

    __slots__ = ("new", "old", "path", "status")

    def __init__(self, status: str, path: str, old: str | None, new: str | None) -> None:
        self.status, self.path, self.old, self.new = status, path, old, new

    def __repr__(self) -> str:
        return f"Change({self.status} {self.path})"


class Objects(ABC):
    """Read-only access to one repository's objects and refs (a push's quarantined objects included)."""

    def __init__(self) -> None:
        self._trees: dict[str, Tree | None] = {}

    @abstractmethod
    def read(self, oid: str) -> tuple[str, bytes]:
        """The type (commit, tree, blob, tag) and bytes of an object; ("missing", b"") when there is none."""

    @abstractmethod
    def header(self, oid: str) -> tuple[str, int]:
        """The type and size of an object without its bytes; ("missing", 0) when there is none."""

    @abstractmethod
    def resolve(self, ref: str) -> str | None:
        """The id a full ref name points at (symbolic refs followed, tags not peeled), None without one."""

    @abstractmethod
    def commits(self, tip: str, base: str | None) -> list[tuple[str, tuple[str, ...]]]:
        """(id, parents) of every commit reachable from `tip` and not from `base`, parents before children."""

    @abstractmethod
    def refs(self, prefix: str) -> dict[str, str]:
        """Every ref under `prefix` and the id it points at."""

    def read_many(self, oids: list[str]) -> list[tuple[str, bytes]]:
        """`read` of each id, in order (a reader that can ask for many at once does)."""
        return [self.read(oid) for oid in oids]

    def added(self, pairs: list[tuple[str, str | None]]) -> dict[str, list[tuple[str, str]]]:
        """For each (commit, base commit or None for the empty tree), the files the commit's tree adds to the
        base's: commit id -> [(path, blob id)], in git's path order (a reader that has git compare does)."""
        found: dict[str, list[tuple[str, str]]] = {}
        for oid, base in pairs:
            commit, before = self.commit(oid), self.commit(base) if base is not None else None
            if commit is None or (base is not None and before is None):
                raise KeyError(f"commit {(oid if commit is None else base or '')[:12]} is missing")
            changes = self.diff(before.tree if before is not None else None, commit.tree)
            found[oid] = [(c.path, c.new) for c in changes if c.status == "A" and c.new is not None]
        return found

    def descends(self, new: str, old: str) -> bool:
        """Is `old` an ancestor of `new` (and not `new` itself)?"""
        return new != old and any(old in parents for _, parents in self.commits(new, old))

    def kind(self, oid: str) -> str:
        return self.header(oid)[0]

    def tree(self, oid: str) -> Tree | None:
        """The tree `oid` parsed (None: not a tree here)."""
        if oid not in self._trees:
            self.trees([oid])
        return self._trees[oid]

    def trees(self, oids: list[str]) -> None:
        """Read and keep the trees not kept yet, asking for them at once (`tree` then finds them)."""
        wanted = [oid for oid in dict.fromkeys(oids) if oid not in self._trees]
        if len(self._trees) + len(wanted) > MAX_TREES:
            self._trees.clear()
        for oid, (kind, data) in zip(wanted, self.read_many(wanted), strict=True):
            self._trees[oid] = Tree(oid, tree_rows(data, len(oid) // 2)) if kind == "tree" else None

    def blob(self, oid: str) -> bytes | None:
        kind, data = self.read(oid)
        return data if kind == "blob" else None

    def commit(self, oid: str) -> Commit | None:
        kind, data = self.read(oid)
        return commit_of(oid, data) if kind == "commit" else None

    def at(self, tree: str | None, path: str) -> Entry | None:
        """The entry at `path` (slash-separated) under tree `tree`, or None."""
        current, entry = tree, None
        for part in path.split("/"):
            found = self.tree(current) if current is not None else None
            entry = found.get(part) if found is not None else None
            if entry is None:
                return None
            current = entry.oid if entry.kind == "tree" else None
        return entry

    def blob_at(self, tree: str | None, path: str) -> bytes | None:
        entry = self.at(tree, path)
        return self.blob(entry.oid) if entry is not None and entry.kind == "blob" else None

    def diff(self, old: str | None, new: str) -> list[Change]:
        """The files that differ between two trees (`old` None: the empty tree), in git's path order."""
        changes: list[Change] = []
        self._diff(old, new, "", changes)
        return changes

    def _diff(self, old: str | None, new: str | None, prefix: str, out: list[Change]) -> None:
        before = self.tree(old) if old is not None else None
        after = self.tree(new) if new is not None else None
        rows_before = set(before.rows) if before is not None else set()
        rows_after = set(after.rows) if after is not None else set()
        # rows both trees hold (same mode, name and id) are what did not change: skipped without parsing
        mine = {_order(row): row for row in rows_before - rows_after}
        theirs = {_order(row): row for row in rows_after - rows_before}
        for key in sorted(mine.keys() | theirs.keys()):
            a, b = mine.get(key), theirs.get(key)
            path = prefix + (a or b)[1].decode("utf-8", "replace")  # type: ignore[index]  # one of them is there
            if (a is not None and a[0] == _TREE) or (b is not None and b[0] == _TREE):
                self._diff(a[2].hex() if a else None, b[2].hex() if b else None, path + "/", out)
            elif a is None:
                out.append(Change("A", path, None, b[2].hex()))  # type: ignore[index]
            elif b is None:
                out.append(Change("D", path, a[2].hex(), None))
            else:
                out.append(Change("M", path, a[2].hex(), b[2].hex()))


_TREE = b"40000"
_ROW = rb"(40000|100644|100755|120000|160000) ([^\x00/]+)\x00(.{%d})"
"""One entry of a tree as git writes it (its modes, a name without NUL or slash, the id's bytes)."""
_ROWS = {width: re.compile(_ROW % width, re.DOTALL) for width in (20, 32)}
_WHOLE = {width: re.compile(rb"(?:%s)*" % (_ROW % width).replace(b"(", b"(?:"), re.DOTALL) for width in (20, 32)}


def _order(row: tuple[bytes, bytes, bytes]) -> bytes:
    """git's sort key of a tree entry: a folder sorts as if its name ended in a slash."""
    return row[1] + b"/" if row[0] == _TREE else row[1]


def tree_rows(data: bytes, width: int) -> list[tuple[bytes, bytes, bytes]]:
    """The raw entries of a tree object: (mode, name, id bytes) each, the mode in git's own spelling. A tree
    written as git writes trees is cut by one regular expression; any other (a mode with a leading zero,
    bytes left over) is read entry by entry as before and its modes spelled as git spells them, so two
    rows are equal exactly when their mode, name and id are."""
    if width in _ROWS and _WHOLE[width].fullmatch(data):
        rows: list[tuple[bytes, bytes, bytes]] = _ROWS[width].findall(data)
        return rows
    return [(b"%o" % entry.mode, entry.name, bytes.fromhex(entry.oid)) for entry in parse_tree(data, width)]


def parse_tree(data: bytes, width: int) -> list[Entry]:
    """The entries of a raw tree object (`<mode> <name>\\0<id>`…); `width` is the id's length in bytes."""
    entries: list[Entry] = []
    at, end = 0, len(data)
    while at < end:
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        entries.append(Entry(data[space + 1 : nul], int(data[at:space], 8), data[nul + 1 : nul + 1 + width].hex()))
        at = nul + 1 + width
    return entries


def commit_time(commit: Commit) -> int:
    """The committer's time of `commit` in seconds since the epoch (0 when its header has none git wrote)."""
    for line in commit.raw.partition(b"\n\n")[0].split(b"\n"):
        if line.startswith(b"committer "):
            parts = line.rsplit(b" ", 2)
            return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0
    return 0


def commit_of(oid: str, data: bytes) -> Commit:
    """The tree and parents a raw commit names (its header lines up to the first blank line)."""
    tree = ""
    parents: list[str] = []
    for line in data.partition(b"\n\n")[0].split(b"\n"):
        if line.startswith(b"tree ") and not tree:
            tree = line[5:].decode("ascii", "replace")
        elif line.startswith(b"parent "):
            parents.append(line[7:].decode("ascii", "replace"))
    return Commit(oid, data, tree, tuple(parents))


_TYPES = {1: "commit", 2: "tree", 3: "blob", 4: "tag"}


class PygitObjects(Objects):
    """The interface over a pygit2 repository that a command has open already."""

    def __init__(self, repo: pygit2.Repository) -> None:
        super().__init__()
        self.repo = repo

    def read(self, oid: str) -> tuple[str, bytes]:
        try:
            kind, data = self.repo.odb.read(oid)
        except (KeyError, ValueError):
            return MISSING
        return _TYPES.get(int(kind), "object"), bytes(data)

    def header(self, oid: str) -> tuple[str, int]:
        try:
            kind, size = self.repo.odb.read_header(oid)
        except (KeyError, ValueError):
            return "missing", 0
        return _TYPES.get(int(kind), "object"), int(size)

    def resolve(self, ref: str) -> str | None:
        try:
            return str(self.repo.references[ref].resolve().target)
        except (KeyError, ValueError):
            return None

    def refs(self, prefix: str) -> dict[str, str]:
        return {name: oid for name in self.repo.references if name.startswith(prefix) and (oid := self.resolve(name))}

    def commits(self, tip: str, base: str | None) -> list[tuple[str, tuple[str, ...]]]:
        import pygit2

        walker = self.repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
        if base is not None:
            walker.hide(base)
        return [(str(c.id), tuple(str(p) for p in c.parent_ids)) for c in walker]

    def added(self, pairs: list[tuple[str, str | None]]) -> dict[str, list[tuple[str, str]]]:
        from pathlib import Path

        from hz.gitstate.diff_tree import added_by_git

        return added_by_git(Path(self.repo.path), pairs)

    def descends(self, new: str, old: str) -> bool:
        try:
            return bool(self.repo.descendant_of(new, old))
        except (KeyError, ValueError):
            return False


def objects_of(repo: Any) -> Objects:
    """`repo` as an `Objects`: a reader already, or a pygit2 repository wrapped (callers may pass either)."""
    return repo if isinstance(repo, Objects) else PygitObjects(repo)
