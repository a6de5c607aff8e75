"""`hz codeowners`: print, write or check the CODEOWNERS generated from the team's contracts."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hz.errors import EXIT_ERROR, EXIT_OK

if TYPE_CHECKING:
    from hz.codeowners import Ownership

_MOVE_ASIDE = "move it aside; `hz codeowners --write` writes a regular file in its place"


def run_codeowners(
    *,
    write: bool = False,
    check: bool = False,
    as_json: bool = False,
    environ: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
) -> int:
    from hz.codeowners import diff, locate, merge, render
    from hz.repo import find_root

    root = find_root(cwd)
    entries = ownerships(root, environ)
    block = render(entries)
    if as_json:
        click.echo(json.dumps([{"path": e.path, "owners": e.handles()} for e in sorted(entries)], indent=2))
        return EXIT_OK
    if not (write or check):
        click.echo(block, nl=False)
        return EXIT_OK
    name, ignored = locate(root)
    for other in ignored:
        click.echo(f"note: GitHub reads {name} and ignores {other}", err=True)
    current = _current(root / name, strict=check)
    wanted = merge(current, block, name=name)
    if current == wanted:
        click.echo(f"{name} is up to date ({_count(entries)})")
        return EXIT_OK
    if check:
        click.echo(diff(current, wanted, name), nl=False)
        click.echo(f"{name} is out of date; run `hz codeowners --write`", err=True)
        return EXIT_ERROR
    replace_file(root / name, wanted)
    click.echo(f"wrote {name} ({_count(entries)})")
    return EXIT_OK


def ownerships(root: Path, environ: Mapping[str, str] = os.environ) -> list[Ownership]:
    """Owner and maintainers of every team-layer contract that compiles."""
    from hz.codeowners import Ownership
    from hz.contract.layers import discover_layers
    from hz.contract.project import compile_repository

    team = [layer for layer in discover_layers(root, environ, cwd=root) if layer.kind == "team"]
    compiled = compile_repository(root, environ, cwd=root, layers=team)
    return [
        Ownership(c.path, c.contract.frontmatter.hz.owner, c.contract.frontmatter.hz.maintainers)
        for c in compiled.contracts
        if c.contract is not None
    ]


def _current(target: Path, *, strict: bool) -> str | None:
    """The CODEOWNERS text now in the work tree (None: there is none). Bytes that are not UTF-8 are
    shown replaced: such a file is simply out of date. A folder, a FIFO or a device in its place is an
    error for `--check`; `--write` replaces what it can and refuses a folder itself."""
    from hz.textfile import UnreadableFile, read_bytes_file

    if not os.path.lexists(target):
        return None
    try:
        return read_bytes_file(target, hint=_MOVE_ASIDE).decode("utf-8", errors="replace")
    except UnreadableFile:
        if strict:
            raise
        return None


def replace_file(path: Path, text: str) -> None:
    """Write a repository file atomically with ordinary permissions (0644), replacing what was there."""
    from hz.textfile import replace_text_file

    replace_text_file(path, text, hint=_MOVE_ASIDE)


def _count(entries: list[Ownership]) -> str:
    return f"{len(entries)} contract{'' if len(entries) == 1 else 's'}"
