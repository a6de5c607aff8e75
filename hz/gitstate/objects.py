"""Local git objects with pygit2: blobs, trees and commits written straight into the object store.

No work tree and no index are involved, so writing `hz/state` never touches the member's checkout.
Commits made here carry a fixed, addressless signature (`hz <hz>`, libgit2 refuses an empty e-mail): a commit on
`hz/state` or a lease ref must not carry a member's name or e-mail address either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pygit2

SIGNATURE_NAME = "hz"
BLOB_MODE = 0o100644
TREE_MODE = 0o040000


def open_repo(path: Path) -> pygit2.Repository:
    import pygit2

    return pygit2.Repository(str(path))


def signature(now: datetime) -> pygit2.Signature:
    import pygit2

    return pygit2.Signature(SIGNATURE_NAME, SIGNATURE_NAME, int(now.timestamp()), 0)


def write_tree(repo: pygit2.Repository, base: Any | None, files: Mapping[str, bytes]) -> Any:
    """The id of `base` (a tree id or None) with `files` (path -> content) added or replaced."""
    nested: dict[str, Any] = {}
    for path, data in files.items():
        node = nested
        *dirs, name = path.split("/")
        for part in dirs:
            node = node.setdefault(part, {})
        node[name] = data
    return _build(repo, repo[base] if base is not None else None, nested)


def prune_tree(repo: pygit2.Repository, base: Any, remove: Iterable[str], files: Mapping[str, bytes]) -> Any:
    """The id of tree `base` without the blobs at `remove` and with `files` added or replaced; a folder left
    empty goes too (git keeps no empty folders, and the state lint refuses one)."""
    gone: dict[str, Any] = {}
    for path in remove:
        node = gone
        *dirs, name = path.split("/")
        for part in dirs:
            node = node.setdefault(part, {})
        node[name] = None
    pruned = _prune(repo, repo[base], gone)
    return write_tree(repo, pruned, files)


def _prune(repo: pygit2.Repository, tree: Any, gone: dict[str, Any]) -> Any:
    builder = repo.TreeBuilder(tree)
    for name, child in gone.items():
        if name not in tree:
            continue
        if child is None:
            builder.remove(name)
            continue
        sub = _prune(repo, repo[tree[name].id], child)
        emptied: Any = repo[sub]
        if len(emptied) == 0:
            builder.remove(name)
        else:
            builder.insert(name, sub, TREE_MODE)
    return builder.write()


def _build(repo: pygit2.Repository, tree: Any | None, nested: dict[str, Any]) -> Any:
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    for name, child in nested.items():
        if isinstance(child, bytes):
            builder.insert(name, repo.create_blob(child), BLOB_MODE)
            continue
        existing = tree[name] if tree is not None and name in tree else None
        subtree = repo[existing.id] if existing is not None and existing.type_str == "tree" else None
        builder.insert(name, _build(repo, subtree, child), TREE_MODE)
    return builder.write()


def make_commit(repo: pygit2.Repository, tree: Any, parents: list[Any], message: str, now: datetime) -> str:
    """Write a commit object (no ref moves) and return its hex id."""
    sig = signature(now)
    return str(repo.create_commit(None, sig, sig, message, tree, parents))


def read_path(repo: pygit2.Repository, commit_id: str, path: str) -> bytes | None:
    """The content of `path` in the tree of `commit_id`, or None when it is not there."""
    tree = repo[commit_id].tree
    try:
        entry = tree[path]
    except KeyError:
        return None
    obj: Any = repo[entry.id]
    return bytes(obj.data) if obj.type_str == "blob" else None


def has_object(repo: pygit2.Repository, oid: str) -> bool:
    try:
        return oid in repo
    except ValueError:
        return False


def set_ref(repo: pygit2.Repository, name: str, oid: str) -> None:
    repo.references.create(name, oid, force=True)


def resolve(repo: pygit2.Repository, name: str) -> str | None:
    try:
        return str(repo.references[name].peel().id)
    except (KeyError, ValueError):
        return None


def small_blob(repo: pygit2.Repository, oid: Any, limit: int) -> bytes | None:
    """The bytes of blob `oid` when it is a blob of at most `limit` bytes; None otherwise. The size comes
    from the object's header, so a huge blob (an event file on a remote without the hook) is never loaded."""
    import pygit2

    try:
        kind, size = repo.odb.read_header(oid)
    except (KeyError, ValueError):
        return None
    if kind != pygit2.enums.ObjectType.BLOB or size > limit:
        return None
    return bytes(repo.odb.read(oid)[1])
