"""The `pre-receive` hook that makes a self-hosted remote enforce what hz promises about `hz/state`.

`install_hook(bare)` writes `hooks/pre-receive` calling this very Python interpreter with
`-m hz state lint --hook`. The hook reads `<old> <new> <ref>` lines on stdin and refuses the whole
push when `hz/state` would be deleted or rewound (not a fast-forward), when any new commit fails the
lint, or when a lease ref would be deleted, rewound, or given a malformed record or a lower token.
Other refs pass untouched. The pushed objects sit in a quarantine directory until the hook accepts,
which git names in GIT_OBJECT_DIRECTORY; it is added to the object lookup so pygit2 can read them.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hz.diagnostic import Diagnostic
from hz.errors import HzError
from hz.gitstate.layout import LEASE_FILE, LEASE_PREFIX, STATE_REF
from hz.gitstate.lint import lint_range
from hz.gitstate.transport import ZERO

if TYPE_CHECKING:
    import pygit2

HOOK_MARK = "# installed by hz state install-hook"


def install_hook(bare: Path, python: str = sys.executable) -> Path:
    if not (bare / "objects").is_dir() or not (bare / "refs").is_dir():
        raise HzError(f"not a bare git repository: {bare}", hint="give the path of the remote's .git directory")
    hook = bare / "hooks" / "pre-receive"
    if hook.exists() and HOOK_MARK not in hook.read_text(encoding="utf-8", errors="replace"):
        raise HzError(f"{hook} exists and was not written by hz", hint="merge it by hand or move it away")
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\n{HOOK_MARK}\nexec {shlex.quote(python)} -m hz state lint --hook\n", encoding="utf-8")
    hook.chmod(0o755)
    return hook


def open_quarantined(git_dir: Path, environ: Mapping[str, str]) -> pygit2.Repository:
    import pygit2

    repo = pygit2.Repository(str(git_dir))
    quarantine = environ.get("GIT_OBJECT_DIRECTORY")
    if quarantine:
        repo.odb.add_disk_alternate(quarantine)
    return repo


def check_updates(repo: pygit2.Repository, lines: Iterable[str]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for line in lines:
        if not line.strip():
            continue
        old, new, ref = line.split()
        if ref == STATE_REF:
            found.extend(_check_state(repo, old, new))
        elif ref.startswith(LEASE_PREFIX):
            found.extend(_check_lease(repo, ref, old, new))
    return found


def _refusal(ref: str, message: str, code: str = "HZS013") -> Diagnostic:
    return Diagnostic(ref, 1, 1, code, "error", ref, message, "hz/state and leases only ever fast-forward")


def _fast_forward(repo: pygit2.Repository, old: str, new: str) -> bool:
    return old in (ZERO, new) or bool(repo.descendant_of(new, old))


def _check_state(repo: pygit2.Repository, old: str, new: str) -> list[Diagnostic]:
    if new == ZERO:
        return [_refusal(STATE_REF, "hz/state may not be deleted")]
    if not _fast_forward(repo, old, new):
        return [_refusal(STATE_REF, "hz/state may not be rewritten (not a fast-forward)")]
    return lint_range(repo, None if old == ZERO else old, new)


def _check_lease(repo: pygit2.Repository, ref: str, old: str, new: str) -> list[Diagnostic]:
    if new == ZERO:
        return [_refusal(ref, "a lease is never deleted (that would reset its token)")]
    if not _fast_forward(repo, old, new):
        return [_refusal(ref, "a lease is never rewound (not a fast-forward)")]
    return _lease_chain(repo, ref, None if old == ZERO else old, new)


def _lease_chain(repo: pygit2.Repository, ref: str, old: str | None, new: str) -> list[Diagnostic]:
    import pygit2
    from pydantic import ValidationError

    from hz.gitstate.lease_record import LeaseRecord

    walker = repo.walk(new, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    if old is not None:
        walker.hide(old)
    commit: Any
    for commit in walker:
        try:
            record = LeaseRecord.from_bytes(_lease_bytes(repo, commit))
            parent = LeaseRecord.from_bytes(_lease_bytes(repo, commit.parents[0])) if commit.parents else None
        except (KeyError, ValidationError, ValueError) as exc:
            return [
                _refusal(ref, f"commit {str(commit.id)[:12]}: not a lease record ({exc.__class__.__name__})", "HZS014")
            ]
        if len(commit.parents) > 1 or len(commit.tree) != 1 or ref != LEASE_PREFIX + record.lease:
            return [_refusal(ref, f"commit {str(commit.id)[:12]}: a lease commit holds one {LEASE_FILE}", "HZS014")]
        if parent is not None and (
            record.token < parent.token or (record.holder != parent.holder and record.token == parent.token)
        ):
            return [_refusal(ref, f"commit {str(commit.id)[:12]}: token {record.token} after {parent.token}", "HZS014")]
    return []


def _lease_bytes(repo: pygit2.Repository, commit: Any) -> bytes:
    blob: Any = repo[commit.tree[LEASE_FILE].id]
    return bytes(blob.data)


def run_hook(stdin: Iterable[str], environ: Mapping[str, str] = os.environ) -> list[Diagnostic]:
    git_dir = Path(environ.get("GIT_DIR", "."))
    repo = open_quarantined(git_dir, environ)
    return check_updates(repo, stdin)
