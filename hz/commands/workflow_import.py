"""`hz workflow import-prose FILE [--write] [--owner @handle]`: an OpenProse responsibility made a contract.

Prints the contract (or, with --write, writes workflows/<name>.prose.md), then what the import filled in
and what the author must still write, in the words `hz workflow validate` will use. Exit 0 when the
result validates, 1 while something is left to fill in.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import click

from hz.diagnostic import Diagnostic, render_all
from hz.errors import EXIT_ERROR, EXIT_OK, HzError

READ_HINT = "an OpenProse file is a UTF-8 text file named <name>.prose.md"
_SLUG = re.compile(r"^[a-z](?:[a-z0-9]|-(?!-))*[a-z0-9]$|^[a-z]$")


def run_import_prose(
    file: Path,
    *,
    write: bool,
    owner: str | None,
    environ: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
) -> int:
    from ulid import ULID

    from hz.config import load_user_config
    from hz.contract.prose_import import import_prose, kind_refusal, name_from_file, read_prose
    from hz.textfile import read_text_file

    here = cwd or Path.cwd()
    source = file if file.is_absolute() else here / file
    prose = read_prose(read_text_file(source, hint=READ_HINT))
    if prose is None:
        raise HzError(f"{file} is not an OpenProse file", hint=_not_prose_hint(source))
    refusal = kind_refusal(prose.kind)
    if refusal is not None:  # before the name: what the file is matters more than what it is called
        raise refusal
    name = prose.name or name_from_file(source.name) or ""
    if not _SLUG.match(name) or len(name) > 64:  # it becomes the file name: never a path
        said = "OpenProse name" if prose.name else "file name (the file has no name:)"
        raise HzError(
            f"the {said} {name!r} cannot name a contract file",
            hint="write name: in lowercase letters, digits and single dashes, then import again",
        )
    handle = owner if owner is not None else load_user_config(environ).handle
    if handle and not handle.startswith("@"):
        handle = "@" + handle
    imported = import_prose(prose, owner=handle, contract_id=str(ULID()), file_name=source.name)
    destination = _destination(name, cwd) if write else Path("workflows") / f"{name}.prose.md"
    if write:
        _write(destination, source, imported.text)
        click.echo(f"wrote {_shown(destination, here)}")
        if destination.resolve() != source.resolve():
            imported.notes.append(f"{file} is left as it was: remove it once the contract is right")
    else:
        click.echo(imported.text, nl=False)
    for note in imported.notes:
        click.echo(f"note: {note}", err=True)
    for todo in imported.todos:
        click.echo(f"to do: {todo}", err=True)
    errors = [d for d in _diagnostics(_shown(destination, here), imported.text) if d.is_error]
    if errors:
        click.echo("hz workflow validate will report, until these are filled in:", err=True)
        click.echo(render_all(sorted(errors)), err=True)
    if not write:
        click.echo(f"(nothing written: run again with --write to write {destination})", err=True)
    return EXIT_ERROR if errors else EXIT_OK


def _shown(path: Path, cwd: Path) -> str:
    return os.path.relpath(path, cwd) if path.is_relative_to(cwd.resolve()) else str(path)


def _not_prose_hint(path: Path) -> str:
    from hz.contract.text import normalize, split_frontmatter
    from hz.textfile import read_text_file

    split = split_frontmatter(normalize(read_text_file(path, hint=READ_HINT)))
    if split is not None and re.search(r"^hz\s*:", split.yaml, re.M):
        return f"it already has an hz: block: check it with `hz workflow validate {shlex.quote(str(path))}`"
    return "an OpenProse file starts with frontmatter between --- lines that names its kind (kind: responsibility)"


def _destination(name: str, cwd: Path | None) -> Path:
    from hz.repo import find_root

    return find_root(cwd) / "workflows" / f"{name}.prose.md"


def _write(destination: Path, source: Path, text: str) -> None:
    """In place when the OpenProse file already stands where the contract goes; never over another file."""
    from hz.commands.init import create_new
    from hz.textfile import replace_text_file

    if destination.exists() and destination.resolve() == source.resolve():
        replace_text_file(destination, text, mode=destination.stat().st_mode & 0o777, hint=READ_HINT)
    elif not create_new(destination, text):  # exclusive: never through a link planted under that name
        raise HzError(
            f"{destination} already exists",
            hint="move it away first, or import without --write and merge the printed contract by hand",
        )


def _diagnostics(label: str, text: str) -> list[Diagnostic]:
    """What `hz workflow validate` says about the contract, stages 1 to 3, before it is written anywhere."""
    from hz.contract.load import load_contract
    from hz.contract.policy import Policies
    from hz.contract.resolve import check_registry

    result = load_contract(Path(label), text=text)
    found = list(result.diagnostics)
    if result.contract is not None:
        found += check_registry(result.contract, label, policies=Policies({}), now=datetime.now(UTC))
    return found


def openprose_notice(path: Path, shown: str) -> str | None:
    """What `hz workflow migrate` says about an OpenProse file in place of its validation errors, which
    all follow from its having no hz: block; None when `path` is not an OpenProse file."""
    from hz.contract.prose_import import kind_refusal, read_prose
    from hz.textfile import UnreadableFile, read_text_file

    try:
        prose = read_prose(read_text_file(path, hint=READ_HINT))
    except UnreadableFile:
        return None
    if prose is None:
        return None
    refusal = kind_refusal(prose.kind)
    if refusal is not None:
        return f"{shown}: {refusal.message}, so it is not adopted\n  hint: {refusal.hint}"
    return (
        f"{shown}: an OpenProse responsibility with no hz: block, so not yet an hz contract and not adopted\n"
        f"  hint: run `hz workflow import-prose {shlex.quote(shown)} --write` to write the hz: block "
        "from its own ### Requires and ### Maintains"
    )
