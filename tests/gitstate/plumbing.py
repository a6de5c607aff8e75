"""Objects built with git's own plumbing, the way an attacker would: any tree, any commit bytes.

`git hash-object -w` for blobs, `git mktree -z` for trees (any name, empty trees included) and
`git hash-object -t commit --literally` for commits with whatever headers and message the test asks
for. Nothing here goes through hz, so what the hook and the lint see is exactly what git stores.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Union

Tree = Mapping[bytes, Union[bytes, "Tree"]]  # name -> file content, or a nested tree (an empty one is allowed)

HZ_SIGNATURE = b"hz <hz> 1761836400 +0000"


def _git(clone: Path, *args: str, data: bytes = b"") -> str:
    done = subprocess.run(
        ["git", "-C", str(clone), *args], input=data, capture_output=True, check=args[0] != "rev-parse"
    )
    return done.stdout.decode().strip()


def blob(clone: Path, data: bytes) -> str:
    return _git(clone, "hash-object", "-w", "--stdin", data=data)


def tree(clone: Path, entries: Tree) -> str:
    lines = []
    for name, value in sorted(entries.items()):
        if isinstance(value, bytes):
            lines.append(b"100644 blob " + blob(clone, value).encode() + b"\t" + name + b"\0")
        else:
            lines.append(b"040000 tree " + tree(clone, value).encode() + b"\t" + name + b"\0")
    return _git(clone, "mktree", "-z", "--missing", data=b"".join(lines))


def commit(
    clone: Path,
    tree_id: str,
    parents: tuple[str, ...] = (),
    message: bytes = b"hz-state: 1 event\n",
    *,
    author: bytes = HZ_SIGNATURE,
    extra: bytes = b"",
) -> str:
    """A commit object of exactly these bytes: `extra` is inserted as raw header lines after the committer."""
    head = b"tree " + tree_id.encode() + b"\n"
    head += b"".join(b"parent " + p.encode() + b"\n" for p in parents)
    head += b"author " + author + b"\ncommitter " + HZ_SIGNATURE + b"\n" + extra
    return _git(clone, "hash-object", "-t", "commit", "-w", "--literally", "--stdin", data=head + b"\n" + message)


def nested(files: Mapping[str, bytes]) -> dict[bytes, object]:
    """`{"events/a/b.json": data}` as the nested mapping `tree` takes."""
    root: dict[bytes, object] = {}
    for path, data in files.items():
        node = root
        *folders, name = path.encode().split(b"/")
        for folder in folders:
            child = node.setdefault(folder, {})
            assert isinstance(child, dict)
            node = child
        node[name] = data
    return root


def push(clone: Path, remote: Path, *refspecs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(clone), "push", "--porcelain", "--atomic", str(remote), *refspecs],
                          capture_output=True, text=True, check=False)  # fmt: skip


def remote_lines(stderr: str) -> list[str]:
    return [line.removeprefix("remote: ").rstrip() for line in stderr.splitlines() if line.startswith("remote: ")]


def append_unguarded(bare: Path, files: Mapping[str, bytes], ref: str = "refs/heads/hz/state") -> str:
    """A commit adding `files` on top of `ref`, written straight into the bare repository (no push, so no
    hook: what a remote without hz's hook, such as GitHub, may hold); the new tip."""
    tip = _git(bare, "rev-parse", "--verify", "-q", ref)
    listed = _git(bare, "ls-tree", "-r", "-z", "--name-only", tip).split("\0") if tip else []
    old = {path: subprocess.run(["git", "-C", str(bare), "cat-file", "blob", f"{tip}:{path}"], capture_output=True,
                                check=True).stdout for path in listed if path}  # fmt: skip
    tree_id = tree(bare, nested({**old, **files}))  # type: ignore[arg-type]
    new = commit(
        bare, tree_id, (tip,) if tip else (), f"hz-state: {len(files)} event{'s' * (len(files) > 1)}\n".encode()
    )
    _git(bare, "update-ref", ref, new)
    return new
