"""`hz workflow migrate [PATH…] [--write]`: lift contract files to the newest frontmatter schema.

Only the frontmatter is rewritten, and only when its schema is older than this hz reads; the body is
kept byte for byte. Fingerprints survive, because they are computed over the migrated model anyway.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hz.diagnostic import Diagnostic, render_all
from hz.errors import EXIT_ERROR, EXIT_OK

if TYPE_CHECKING:
    from hz.contract.migrate import Migration


READ_HINT = "a contract is a UTF-8 text file; move anything else out of workflows/"


@dataclass(frozen=True)
class FileMigration:
    path: Path
    found: int | None  # the schema the file declares (None: missing or unreadable)
    text: str | None  # the migrated file text, None when nothing changes
    problem: str | None = None


def run_migrate(
    paths: Sequence[Path], *, write: bool, environ: Mapping[str, str] = os.environ, cwd: Path | None = None
) -> int:
    """Report (or write) each file's schema step, explain every file that has errors, adopt the rest.

    The errors are the ones `hz workflow validate` finds, with their codes, places and hints, so one
    broken file is told about and the valid contracts of the repository are still adopted.
    """
    from hz.commands.workflow_import import openprose_notice
    from hz.commands.workflow_validate import contract_diagnostics, expand
    from hz.repo import find_root

    root = find_root(cwd)
    here = cwd or Path.cwd()
    files = expand(paths, here) if paths else _repository_files(root)
    found, _ = contract_diagnostics(paths, environ, cwd)
    errors: dict[str, list[Diagnostic]] = {}
    for diagnostic in found:
        if diagnostic.is_error:
            errors.setdefault(diagnostic.path, []).append(diagnostic)
    status = EXIT_OK
    for path in files:
        shown = _shown(path, root)
        own = errors.pop(shown, []) + errors.pop(_label(path, here), [])
        notice = openprose_notice(path, shown)
        if notice is not None:  # its errors all follow from its having no hz: block: say what it is instead
            click.echo(notice, err=True)
            status = EXIT_ERROR
            continue
        status = max(status, _report(plan_file(path), shown, own, write))
    # the repository's other findings (`_defaults.yaml`, a misnamed file); the member's own layers
    # outside it are shown by absolute paths and are not this repository's to migrate
    rest = [d for group in errors.values() for d in group if not Path(d.path).is_absolute()]
    if rest:
        click.echo(render_all(sorted(rest)), err=True)
        status = EXIT_ERROR
    if not paths:  # every contract of the repository becomes a Heinzelmännchen at v1 (idempotent)
        from hz.commands.heinzel_adopt import adopt_repository

        status = max(status, adopt_repository(root, environ=environ))
    if status != EXIT_OK:
        click.echo("fix the files above, then run `hz workflow migrate` again", err=True)
    return status


def _repository_files(root: Path) -> list[Path]:
    """The contract files of the repository's own layers, as compiling it lists them."""
    from hz.contract.layers import Layer, contract_files

    folders = [root / "workflows", root / ".heinzel" / "workflows"]
    return [f.path for folder in folders if folder.is_dir() for f in contract_files(Layer("team", "", folder, root))]


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _label(path: Path, cwd: Path) -> str:
    return str(path.relative_to(cwd)) if path.is_relative_to(cwd) else str(path)


def plan_file(path: Path) -> FileMigration:
    from hz.contract.migrate import SchemaTooNew
    from hz.textfile import UnreadableFile, read_text_file

    try:
        text = read_text_file(path, hint=READ_HINT)
        found, migrated = migrate_text(text)
    except UnreadableFile as exc:
        return FileMigration(path, None, None, exc.reason)
    except (ValueError, SchemaTooNew) as exc:
        return FileMigration(path, None, None, str(exc))
    return FileMigration(path, found, migrated)


def migrate_text(
    text: str, *, migrations: Mapping[int, Migration] | None = None, newest: int | None = None
) -> tuple[int | None, str | None]:
    """The declared schema and the migrated text (None when already current). ValueError: no YAML.

    `migrations` and `newest` default to this hz's own; tests pass others.
    """
    from hz.contract.migrate import MIGRATIONS, SchemaTooNew, migrate, schema_of
    from hz.contract.model import SCHEMA_VERSION
    from hz.contract.text import normalize, split_frontmatter
    from hz.contract.yamlload import YamlProblem, load_mapping

    steps = MIGRATIONS if migrations is None else migrations
    target = SCHEMA_VERSION if newest is None else newest
    split = split_frontmatter(normalize(text))
    if split is None:
        raise ValueError("no frontmatter")
    try:
        data = load_mapping(split.yaml)
    except YamlProblem as problem:
        raise ValueError(f"line {split.yaml_line + problem.line - 1}: {problem.message}") from None
    found = schema_of(data)
    if found is not None and found > target:
        raise SchemaTooNew(found, target)
    if found is None or found == target or found < 1:  # no schema to lift from: validation says why
        return found, None
    migrated = migrate(data, migrations=steps, newest=target)
    return found, "---\n" + dump_yaml(migrated) + "---\n" + split.body


def dump_yaml(data: Mapping[str, object]) -> str:
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    stream = io.StringIO()
    yaml.dump(dict(data), stream)
    return stream.getvalue()


def _report(item: FileMigration, shown: str, errors: list[Diagnostic], write: bool) -> int:
    if errors:
        click.echo(render_all(sorted(errors)), err=True)
    elif item.problem is not None:
        click.echo(f"{shown}: cannot migrate: {item.problem}", err=True)
    if errors or item.problem is not None:
        return EXIT_ERROR
    if item.text is None:
        click.echo(f"{shown}: schema {item.found}, up to date")
        return EXIT_OK
    if write:
        _replace(item.path, item.text)
        click.echo(f"{shown}: migrated from schema {item.found}")
    else:
        click.echo(f"{shown}: schema {item.found}, would migrate (run with --write)")
    return EXIT_OK


def _replace(path: Path, text: str) -> None:
    """Rewrite a file of the work tree in one step, keeping its mode (not hz's private 0600)."""
    from hz.textfile import replace_text_file

    replace_text_file(path, text, mode=path.stat().st_mode & 0o777, hint=READ_HINT)
