"""The `pre-receive` hook that makes a self-hosted remote enforce what hz promises about `hz/state`.

`install_hook(bare)` writes `hooks/pre-receive` calling this very Python interpreter with
`-m hz state lint --hook`. The hook reads `<old> <new> <ref>` lines on stdin and refuses the whole
push when `hz/state` would be deleted or rewound (not a fast-forward), when any new commit fails the
lint (hz.gitstate.lint; the tokens of its events are checked against the lease chains as this push
leaves them), when a lease ref fails hz.gitstate.lease_lint (its roles judged by the contracts on this
repository's `main`), or when the push writes any other ref under `refs/hz/`, a `refs/replace/*` or a
`refs/notes/*` ref. Branches and tags pass untouched. The pushed objects sit in a quarantine directory
until the hook accepts, which git names in GIT_OBJECT_DIRECTORY; the hook reads objects through git
itself (hz.gitstate.catfile: one `cat-file` process, `rev-list`), which sees the quarantine, and never
imports pygit2. Whatever goes wrong inside refuses the push (see hz.commands.state_lint.hook_command): a
gate that cannot check lets nothing through.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hz.diagnostic import Diagnostic
from hz.errors import HzError
from hz.gitstate.layout import LEASE_PREFIX, STATE_REF, ZERO
from hz.gitstate.lease_lint import check_lease
from hz.gitstate.lint import lint_range

if TYPE_CHECKING:
    from hz.gitstate.lint_contracts import MainContracts
    from hz.gitstate.main_cache import MainCache
    from hz.gitstate.odb import Objects

HOOK_MARK = "# installed by hz state install-hook"
HZ_PREFIX = "refs/hz/"
REPLACE_PREFIX = "refs/replace/"
NOTES_PREFIX = "refs/notes/"
FOREIGN_HINT = "hz writes refs/heads/hz/state and refs/hz/lease/<hz id> only; push other work to a branch or tag"
_UPDATE = re.compile(r"(?P<old>[0-9a-f]{40}|[0-9a-f]{64}) (?P<new>[0-9a-f]{40}|[0-9a-f]{64}) (?P<ref>refs/\S+)")


class HookFailure(HzError):
    """The hook could not check a push (a malformed line, a missing object): the push is refused."""


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


def check_updates(objects: Objects, lines: Iterable[str], main: MainCache | None = None) -> list[Diagnostic]:
    """Every finding about the updates `lines` name; `main`: where the contracts on main are kept between
    pushes (None: read them from the repository)."""
    from hz.gitstate.lint_contracts import MainContracts

    updates = [_parse(line) for line in lines if line.strip()]
    pushed = {ref: new for _, new, ref in updates if ref.startswith(LEASE_PREFIX) and new != ZERO}
    if not any(ref == STATE_REF or ref.startswith(LEASE_PREFIX) for _, _, ref in updates):
        contracts = None
    else:  # main as it is before this push
        contracts = main.contracts() if main is not None else MainContracts.read(objects, strict=True)
    found = _check_all(objects, updates, pushed, contracts)
    if main is not None:
        main.save(contracts)  # with the versions this push counted
    return found


def _check_all(
    objects: Objects, updates: list[tuple[str, str, str]], pushed: dict[str, str], contracts: MainContracts | None
) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for old, new, ref in updates:
        if ref == STATE_REF:
            found.extend(_check_state(objects, old, new, pushed, contracts, updates))
        elif ref.startswith(LEASE_PREFIX):
            found.extend(check_lease(objects, ref, old, new, contracts=contracts))
        elif problem := foreign_ref(ref):
            found.append(_foreign(ref, problem))
    return found


def _foreign(ref: str, problem: str) -> Diagnostic:
    return Diagnostic(ref, 1, 1, "HZS016", "error", ref, problem, FOREIGN_HINT)


def _parse(line: str) -> tuple[str, str, str]:
    """One `<old> <new> <ref>` line as git sends it; anything else is refused (HookFailure)."""
    match = _UPDATE.fullmatch(line.rstrip("\n"))
    if match is None:
        raise HookFailure("a ref update line git would not send")
    return match["old"], match["new"], match["ref"]


def foreign_ref(ref: str) -> str | None:
    """Why a push may not write `ref` (None: it may). Under hz's own names only hz/state and leases exist;
    `refs/replace/*` would change what the server's `git log` shows for any commit, and `refs/notes/*`
    would attach text to it."""
    if ref.startswith(REPLACE_PREFIX):
        return "refs/replace/* would rewrite what the server shows for other commits"
    if ref.startswith(NOTES_PREFIX):
        return "refs/notes/* would attach text to what the server shows for other commits"
    if ref.startswith(HZ_PREFIX):
        return "under refs/hz/ only lease refs exist (refs/hz/lease/<hz id>)"
    return None


def _refusal(ref: str, message: str, code: str = "HZS013") -> Diagnostic:
    return Diagnostic(ref, 1, 1, code, "error", ref, message, "hz/state and leases only ever fast-forward")


def _check_state(
    objects: Objects,
    old: str,
    new: str,
    pushed: Mapping[str, str],
    contracts: MainContracts | None,
    updates: list[tuple[str, str, str]],
) -> list[Diagnostic]:
    from hz.gitstate.draft_tips import DraftTips
    from hz.gitstate.lint import LintContext
    from hz.gitstate.lint_fence import LeaseBook

    if new == ZERO:
        return [_refusal(STATE_REF, "hz/state may not be deleted")]
    kind = objects.kind(new)
    if kind != "commit":
        kind = "missing object" if kind == "missing" else kind
        return [_refusal(STATE_REF, f"hz/state points at a commit, not a {kind}", "HZS012")]
    if old not in (ZERO, new) and not objects.descends(new, old):  # the range the lint reads answers it
        return [_refusal(STATE_REF, "hz/state may not be rewritten (not a fast-forward)")]
    drafts = DraftTips.pushed(objects, updates)  # a draft.placed's hash is held to the branch pushed with it
    context = LintContext(LeaseBook.for_push(objects, pushed), contracts, datetime.now(UTC), drafts=drafts)
    return lint_range(objects, None if old == ZERO else old, new, context)


def run_hook(stdin: Iterable[str], environ: Mapping[str, str] = os.environ) -> list[Diagnostic]:
    from hz.gitstate.catfile import CatFile

    lines = [line for line in stdin if line.strip()]
    updates = [_parse(line) for line in lines]
    if not any(ref == STATE_REF or ref.startswith(LEASE_PREFIX) for _, _, ref in updates):
        # a push of branches and tags only (the team's code): its refs are judged by name, no object is
        # read, so the hook starts no git process at all
        return [_foreign(ref, problem) for _, _, ref in updates if (problem := foreign_ref(ref))]
    from hz.gitstate.main_cache import MainCache

    git_dir = Path(environ.get("GIT_DIR", "."))
    with CatFile(git_dir, environ) as objects:
        return check_updates(objects, lines, MainCache(git_dir, objects))
