"""`hz workflow …`: click wiring only; the work is in `hz.commands.workflow_*`."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def workflow() -> None:
    """List, show, validate, create, migrate, import and export contracts (workflows/*.prose.md)."""


@workflow.command("list")
@click.option("--tag", "tags", multiple=True, help="Only contracts with this tag (repeat: all must match).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(tags: tuple[str, ...], as_json: bool) -> int:
    """List the contracts of every layer of this repository."""
    from hz.commands.workflow_list import run_list

    return run_list(tags=tags, as_json=as_json)


@workflow.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show(name: str, as_json: bool) -> int:
    """Show a contract: frontmatter, sections, fingerprints, layer and qualified name."""
    from hz.commands.workflow_show import run_show

    return run_show(name, as_json=as_json)


@workflow.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print diagnostics as JSON.")
def validate(paths: tuple[Path, ...], as_json: bool) -> int:
    """Validate contract files or directories (default: every layer of this repository)."""
    from hz.commands.workflow_validate import run_validate

    return run_validate(list(paths), as_json=as_json)


@workflow.command("new")
@click.argument("name")
@click.option("--owner", help="The accountable person, @handle (default: your configured handle).")
@click.option("--scope", type=click.Choice(["team", "personal"]), default="team", show_default=True)
def new(name: str, owner: str | None, scope: str) -> int:
    """Write workflows/NAME.prose.md, a skeleton that validates clean."""
    from hz.commands.workflow_new import run_new

    return run_new(name, owner=owner, scope=scope)


@workflow.command("migrate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--write", is_flag=True, help="Rewrite files whose schema is older (default: only report).")
def migrate(paths: tuple[Path, ...], write: bool) -> int:
    """Migrate contracts to the newest frontmatter schema."""
    from hz.commands.workflow_migrate import run_migrate

    return run_migrate(list(paths), write=write)


@workflow.command("import-prose")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--write", is_flag=True, help="Write workflows/NAME.prose.md (default: print the contract).")
@click.option("--owner", help="The accountable person, @handle (default: your configured handle).")
def import_prose(file: Path, write: bool, owner: str | None) -> int:
    """Make an OpenProse responsibility an hz contract: the hz: block from its own items and facets."""
    from hz.commands.workflow_import import run_import_prose

    return run_import_prose(file, write=write, owner=owner)


@workflow.command("export")
@click.argument("name")
@click.option("--prose", is_flag=True, required=True, help="Export as an OpenProse contract.")
def export(name: str, prose: bool) -> int:
    """Print a contract in another format (OpenProse: Done when folded into Maintains, no hz:)."""
    from hz.commands.workflow_export import run_export

    return run_export(name)
