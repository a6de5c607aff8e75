"""`hz init`: scaffold a team repository. Idempotent: an existing file is kept, never overwritten.

Two files belong to the team and may already hold its own lines: CODEOWNERS gets hz's marked block
appended when it has none, and `.pre-commit-config.yaml` gets hz's hooks appended (`init_precommit`).
Every other file is created only where none exists.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import click

from hz.errors import EXIT_OK, HzError

PLACEHOLDER_OWNER = "@your-handle"
TICK_WORKFLOW = ".github/workflows/hz-tick.yml"
OLD_TICK_WORKFLOW = ".github/workflows/hz.yml"  # what hz init wrote before; it runs the tick too


def run_init(*, owner: str | None = None, environ: Mapping[str, str] = os.environ, cwd: Path | None = None) -> int:
    from ulid import ULID

    from hz.commands import init_files as files
    from hz.commands.init_precommit import NAME as PRE_COMMIT
    from hz.commands.init_precommit import add_hooks
    from hz.config import load_user_config
    from hz.repo import find_root

    root = find_root(cwd)
    config = load_user_config(environ)
    handle = _handle(owner if owner is not None else config.handle)
    tick = OLD_TICK_WORKFLOW if os.path.lexists(root / OLD_TICK_WORKFLOW) else TICK_WORKFLOW
    planned = [
        ("hz.toml", files.HZ_TOML),
        ("workflows/_defaults.yaml", files.DEFAULTS.format(owner=handle, tz=config.timezone or "UTC")),
        ("workflows/repo-digest.prose.md", files.EXAMPLE.format(contract_id=ULID())),
        ("policies/auto-approve.toml", files.POLICIES.format(owner=handle)),
        (tick, files.TICK_WORKFLOW),
        (".github/workflows/hz-check.yml", files.CHECK_WORKFLOW),
        (".github/workflows/hz-state-lint.yml", files.STATE_LINT_WORKFLOW),
    ]
    done = {relative: "created" if create_new(root / relative, text) else "kept" for relative, text in planned}
    notes = _state_note(root)
    # CODEOWNERS after the contracts: hz's block is generated from the contracts now in workflows/.
    owners_file, verb, note = _codeowners(root, environ)
    done[owners_file] = verb
    hooks = add_hooks(root)
    done[PRE_COMMIT] = hooks.verb
    notes += [n for n in (note, hooks.note) if n]
    for relative, verb in done.items():
        click.echo(f"{verb:<7} {relative}")
    for line in notes:
        click.echo(f"note: {line}")
    click.echo(next_steps(handle, owners_file, placeholder=handle == PLACEHOLDER_OWNER))
    return EXIT_OK


def next_steps(handle: str, owners_file: str, *, placeholder: bool) -> str:
    steps = []
    if placeholder:
        steps.append(f"replace {handle} in workflows/_defaults.yaml with the owner's handle, then run "
                     "`hz codeowners --write`")  # fmt: skip
    steps += [
        "commit these files and push them to the team's remote",
        "protect hz/state and refs/hz/*: on GitHub, a ruleset on the branch hz/state that blocks deletion "
        "and force pushes; on a self-hosted bare remote, `hz state install-hook PATH/TO/REMOTE.git`",
        "set the repository variable HZ_PACKAGE (Settings > Secrets and variables > Actions) to a pinned pip "
        "requirement of hz, for the Actions workflows",
        'list each member under [team.members] in hz.toml ("@handle" = ["e-mail", "login"]); each member '
        "clones the repository and runs `hz tick` (or `hz daemon run`)",
        "optionally run `pre-commit install` to check contracts and CODEOWNERS before each commit",
    ]
    numbered = "".join(f"  {n}. {step}\n" for n, step in enumerate(steps, 1))
    return f"next steps:\n{numbered}".rstrip("\n")


def _state_note(root: Path) -> list[str]:
    """A kept hz.toml without `[state]` runs every team contract on its owner's machine alone: say so."""
    from hz.errors import ConfigError
    from hz.gitstate.settings import read_hz_toml

    try:
        document = read_hz_toml(root)
    except ConfigError as exc:
        return [exc.message]
    if document is None:
        return []
    state = document.get("state")
    if not isinstance(state, dict):
        return ["hz.toml has no [state] table, so team contracts run only on their owner's machine; "
                "add one (see the README's team guide)"]  # fmt: skip
    remote = state.get("remote", "origin")
    if (
        isinstance(remote, str)
        and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", remote)
        and not _has_remote(root, remote)
    ):
        return [f"this repository has no remote {remote!r} yet, which hz.toml's [state] names: add it with "
                f"`git remote add {remote} URL` before the first tick"]  # fmt: skip
    return []


def _has_remote(root: Path, name: str) -> bool:
    import subprocess

    from hz.gitenv import git_env

    done = subprocess.run(["git", "-C", str(root), "config", "--get", f"remote.{name}.url"],
                          capture_output=True, env=git_env(), check=False)  # fmt: skip
    return done.returncode == 0


def _codeowners(root: Path, environ: Mapping[str, str]) -> tuple[str, str, str | None]:
    """(the CODEOWNERS GitHub reads, created | updated | kept, a note): hz's block is added to a file
    without one; a file that has one is `hz codeowners --write`'s to update."""
    from hz.codeowners import BEGIN, END, locate, merge, render
    from hz.commands.codeowners import ownerships, replace_file
    from hz.textfile import UnreadableFile, read_text_file

    name, _ = locate(root)
    block = render(ownerships(root, environ))
    path = root / name
    if not os.path.lexists(path):
        return name, "created" if create_new(path, block) else "kept", None
    if path.is_symlink():  # merging would copy what the link points at into the repository
        return name, "kept", f"{name} is a link; run `hz codeowners --write` once it is a file"
    try:
        current = read_text_file(path, hint="move it aside, then run hz init again")
    except UnreadableFile as exc:
        return name, "kept", exc.message
    if any(line.rstrip() in (BEGIN, END) for line in current.splitlines()):
        return name, "kept", None
    replace_file(path, merge(current, block, name=name))
    return name, "updated", None


def _handle(value: str | None) -> str:
    if value is None:
        return PLACEHOLDER_OWNER
    from hz.contract.model import HANDLE_PATTERN

    handle = value if value.startswith("@") else f"@{value}"

    if not re.fullmatch(HANDLE_PATTERN, handle):
        raise HzError(f"not a GitHub handle: {value!r}", hint="pass --owner @user or @org/team")
    return handle


class CannotScaffold(HzError):
    """Something in the way of a file `hz init` writes: a file where a folder goes, or a folder where a file goes."""


def create_new(path: Path, text: str) -> bool:
    """Write `path` only if it does not exist yet (exclusive create, 0644); True when written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # a file (or a link to one) where a folder goes
        blocker = next(p for p in reversed(path.parents) if p.exists() and not p.is_dir())
        raise CannotScaffold(f"{blocker} is not a folder, so hz init cannot write {path}",
                             hint=f"move {blocker.name} aside, then run hz init again") from None  # fmt: skip
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:  # kept: a file, a link or a folder that someone put there
        return False
    path.chmod(0o644)
    return True
