"""`hz init`: scaffold a team repository. Idempotent: an existing file is kept, never overwritten."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import click

from hz.errors import EXIT_OK, HzError

PLACEHOLDER_OWNER = "@your-handle"


def run_init(*, owner: str | None = None, environ: Mapping[str, str] = os.environ, cwd: Path | None = None) -> int:
    from hz.codeowners import locate, render
    from hz.commands import init_files as files
    from hz.commands.codeowners import ownerships
    from hz.config import load_user_config
    from hz.repo import find_root

    root = find_root(cwd)
    config = load_user_config(environ)
    handle = _handle(owner if owner is not None else config.handle)
    planned = [
        ("workflows/_defaults.yaml", files.DEFAULTS.format(owner=handle, tz=config.timezone or "UTC")),
        ("workflows/repo-digest.prose.md", files.EXAMPLE),
        ("policies/auto-approve.toml", files.POLICIES.format(owner=handle)),
        (".github/workflows/hz.yml", files.TICK_WORKFLOW),
        (".github/workflows/hz-check.yml", files.CHECK_WORKFLOW),
    ]
    created = {relative: create_new(root / relative, text) for relative, text in planned}
    # CODEOWNERS last: it is generated from the contracts now in workflows/.
    owners_file, _ = locate(root)
    created[owners_file] = create_new(root / owners_file, render(ownerships(root, environ)))
    for relative, was_created in created.items():
        click.echo(f"{'created' if was_created else 'kept   '} {relative}")
    if handle == PLACEHOLDER_OWNER and created["workflows/_defaults.yaml"]:
        click.echo(f"next: replace {PLACEHOLDER_OWNER} in workflows/_defaults.yaml and run `hz codeowners --write`")
    return EXIT_OK


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
