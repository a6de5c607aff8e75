"""Lease commits made with git plumbing, byte by byte, as an attacker (or an old server) would have them.

Shared by the hook's attack corpus and the tests of clients reading damaged refs.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.canonical import canonical_json
from hz.gitstate.types import format_utc
from tests.gitstate.factory import hz_id

LEASE = hz_id(7)
REF = f"refs/hz/lease/{LEASE}"
ANN = "@ann/m-0000000a"
BOB = "@bob/m-0000000b"


def plumb(clone: Path, *args: str, data: bytes = b"") -> str:
    done = subprocess.run(["git", "-C", str(clone), *args], input=data, capture_output=True, check=True)
    return done.stdout.decode().strip()


def record(now: datetime | None = None, **changes: Any) -> dict[str, Any]:
    """A proper lease record acquired `now` (default: this minute, so the server's clock agrees)."""
    moment = now or datetime.now(UTC)
    fields: dict[str, Any] = {
        "v": 1,
        "lease": LEASE,
        "holder": ANN,
        "role": "owner",
        "token": 1,
        "slot": format_utc(moment.replace(second=0)),
        "acquired": format_utc(moment),
        "expires": format_utc(moment + timedelta(minutes=10)),
        "state": "held",
    }
    fields.update(changes)
    return fields


def line(fields: dict[str, Any]) -> bytes:
    return canonical_json(fields) + b"\n"


def blob(clone: Path, data: bytes) -> str:
    return plumb(clone, "hash-object", "-w", "--stdin", data=data)


def tree(clone: Path, entries: list[tuple[str, str, str]]) -> str:
    """A tree of (mode, name, object id) entries, written with `git mktree`."""
    kinds = {"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree"}
    listing = "".join(f"{mode} {kinds[mode]} {oid}\t{name}\n" for mode, name, oid in entries)
    return plumb(clone, "mktree", data=listing.encode())


def lease_tree(clone: Path, data: bytes) -> str:
    return tree(clone, [("100644", "lease.json", blob(clone, data))])


def commit(
    clone: Path,
    tree_id: str,
    parents: list[str],
    message: bytes,
    *,
    author: bytes | None = None,
    committer: bytes | None = None,
    extra: bytes = b"",
) -> str:
    """A commit object written byte for byte (`hash-object --literally` checks nothing)."""
    stamp = f"hz <hz> {int(datetime.now(UTC).timestamp())} +0000".encode()
    head = f"tree {tree_id}\n".encode() + b"".join(f"parent {p}\n".encode() for p in parents)
    head += b"author " + (author or stamp) + b"\ncommitter " + (committer or author or stamp) + b"\n" + extra
    return plumb(clone, "hash-object", "-t", "commit", "-w", "--literally", "--stdin", data=head + b"\n" + message)


def lease_commit(clone: Path, fields: dict[str, Any], parent: str | None = None, **options: Any) -> str:
    """The commit hz would write for this record (change any part through the keyword arguments)."""
    data = options.pop("data", line(fields))
    message = options.pop("message", f"lease {fields['lease']} token {fields['token']} {fields['state']}\n".encode())
    return commit(clone, lease_tree(clone, data), [parent] if parent else [], message, **options)


def tag(clone: Path, target: str) -> str:
    text = f"object {target}\ntype commit\ntag lease\ntagger hz <hz> 0 +0000\n\nlease\n"
    return plumb(clone, "mktag", data=text.encode())


def push(clone: Path, remote: Path | str, *refspecs: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(clone), "push", "--porcelain", str(remote), *refspecs],
                          capture_output=True, text=True, check=False)  # fmt: skip


def remote_lines(stderr: str) -> list[str]:
    return [line.removeprefix("remote: ").rstrip() for line in stderr.splitlines() if line.startswith("remote: ")]
