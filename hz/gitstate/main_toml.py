"""The team's shared settings as `main` has them: `hz.toml` read from the fetched `main`, not the work tree.

`[state]` (but its `remote`, which says where `main` is fetched from), `[forge]` and `[team.members]` are
what the team reviewed and merged, like its contracts. A member who has not pulled, or a reviewer ticking
on a checked-out pull request branch that edits `hz.toml`, must not tick with other lease times, another
forge or another roster than the team's. So the tick reads them from the commit of `main` its one fetch
brought (hz.review.sync), and says once per tick when the work tree's copy of those tables differs.

The blob is a committed file anyone can change by pull request: bounded, UTF-8, parsed with the same
checks as the work tree's file (hz.gitstate.settings), errors naming `hz.toml on main` and the commit.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from hz.errors import ConfigError
from hz.gitstate.settings import HZ_TOML, MAX_BYTES, no_lookalike, read_hz_toml

SHARED = ("state", "forge", "team")  # the tables a team shares; everything else stays the member's own
_HINT = "fix hz.toml on main by pull request; until then the team's drafts wait for a main hz can read"


def main_label(tip: str) -> Path:
    """How messages name main's hz.toml: a path-like label with the commit, never a file of the work tree."""
    return Path(f"{HZ_TOML} on main ({tip[:12]})")


def read_main_toml(repo: Any, tip: str) -> dict[str, Any] | None:
    """`hz.toml` of the commit `tip` parsed, None when that commit has no such file."""
    import pygit2

    label = main_label(tip)
    try:
        tree = repo[tip].peel(pygit2.Commit).tree
        entry = tree[HZ_TOML]
    except KeyError:
        return None
    blob: Any = repo[entry.id]
    if blob.type_str != "blob" or entry.filemode not in (pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE):
        raise ConfigError(f"{label}: not a regular file", hint=_HINT)
    if blob.size > MAX_BYTES:
        raise ConfigError(f"{label}: larger than {MAX_BYTES} bytes", hint=_HINT)
    try:
        text = bytes(blob.data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: not UTF-8 text (byte {exc.start})", hint=_HINT) from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{label}: not valid TOML: {exc}", hint=_HINT) from None
    except (ValueError, RecursionError):
        raise ConfigError(f"{label}: not TOML hz can read (a huge number or deep nesting)", hint=_HINT) from None
    no_lookalike(label, document)
    return document


def shared_differs(root: Path, main: dict[str, Any] | None) -> list[str]:
    """The shared tables whose work-tree copy is not main's (empty when they agree, or the file is unreadable:
    its own error is said elsewhere). `[state] remote` is the member's to choose and is left out."""
    try:
        local = read_hz_toml(root) or {}
    except ConfigError:
        return []
    theirs = main or {}
    return [name for name in SHARED if _shared(local, name) != _shared(theirs, name)]


def _shared(document: dict[str, Any], name: str) -> Any:
    table = document.get(name)
    if name == "state" and isinstance(table, dict):
        return {k: v for k, v in table.items() if k != "remote"}
    return table


def warning(differs: list[str]) -> str:
    tables = ", ".join(f"[{'team.members' if n == 'team' else n}]" for n in differs)
    return (
        f"hz.toml here differs from main in {tables}: main's are used (the team's, as reviewed); "
        "pull main, or propose the change by pull request"
    )


MAIN_REFS = ("refs/heads/main", "refs/heads/master")


def fetched_main(remote: Any) -> str | None:
    """The commit of the remote's main (else master) as this clone's last fetch left it (hz.review.sync)."""
    from hz.gitstate import objects

    return next((tip for ref in MAIN_REFS if (tip := objects.resolve(remote.repo, remote.tracking(ref)))), None)


def team_toml(remote: Any, tip: str | None = None) -> tuple[dict[str, Any] | None, Path]:
    """(main's hz.toml, the label messages name it by) at `tip`, else at the fetched main; without a
    fetched main, the work tree's (a remote that has no main yet: nothing to differ from)."""
    tip = tip or fetched_main(remote)
    if tip is None:
        return read_hz_toml(remote.root), remote.root / HZ_TOML
    return read_main_toml(remote.repo, tip), main_label(tip)


def team_state_settings(remote: Any, tip: str | None = None) -> Any:
    """`[state]` as main has it, with the work tree's `remote` (where main comes from is the member's)."""
    from hz.gitstate.settings import load_state_settings, state_settings

    document, label = team_toml(remote, tip)
    local = load_state_settings(remote.root)
    table = (document or {}).get("state", {})
    shared = {k: v for k, v in table.items() if k != "remote"} if isinstance(table, dict) else table
    found = state_settings({"state": shared}, label)
    from dataclasses import replace

    return replace(found, remote=local.remote)


def review_settings(document: dict[str, Any] | None, label: Path) -> bool:
    """`[review] require_other_member` (default false): a draft its own author's member approved waits for
    a second member's `hz approve` before its publishes run."""
    table = (document or {}).get("review", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{label}: review must be a table", hint="write [review] require_other_member = true")
    unknown = sorted(set(table) - {"require_other_member"})
    if unknown:
        raise ConfigError(f"{label}: unknown key review.{unknown[0]}", hint="known keys: require_other_member")
    value = table.get("require_other_member", False)
    if not isinstance(value, bool):
        raise ConfigError(f"{label}: review.require_other_member must be true or false", hint="for example true")
    return value


STAMP = "hz-toml-stamp"  # in the remote's private folder: main's tip, the work tree's file, the verdict


def differs_warning(remote: Any, tip: str | None) -> str | None:
    """The tick's one line when the work tree's shared tables are not main's; None when they agree.

    The verdict is kept with main's tip and the local file's digest, so an idle tick whose file and main
    did not move reads nothing but the file (no git process, no pygit2)."""
    import hashlib

    from hz.fsio import atomic_write, read_own

    if tip is None:
        return None
    try:
        local = (remote.root / HZ_TOML).read_bytes()[: MAX_BYTES + 1]
    except OSError:
        local = b""
    seen = f"{tip} {hashlib.sha256(local).hexdigest()}"
    kept = (read_own(remote.local_dir / STAMP, 4096) or b"").decode("utf-8", "replace")
    if kept.startswith(seen + " "):
        differs = kept.removeprefix(seen + " ").split()
    else:
        try:
            differs = shared_differs(remote.root, read_main_toml(remote.repo, tip))
        except ConfigError:
            differs = []  # main's file is broken: the look that reads it says so
        atomic_write(remote.local_dir / STAMP, f"{seen} {' '.join(differs)}\n")
    return warning(differs) if differs else None
