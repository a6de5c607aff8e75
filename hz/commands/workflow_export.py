"""`hz workflow export --prose NAME`: print a contract as an OpenProse file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import click

from hz.commands.workflow_common import compile_here
from hz.diagnostic import render_all
from hz.errors import EXIT_ERROR, EXIT_OK


def run_export(name: str, *, environ: Mapping[str, str] = os.environ, cwd: Path | None = None) -> int:
    from hz.contract.export import export_prose

    compiled = compile_here(environ, cwd)
    entry = compiled.get(name)
    if entry.contract is None:
        click.echo(render_all(d for d in compiled.diagnostics if d.path == entry.path), err=True)
        return EXIT_ERROR
    click.echo(export_prose(entry.contract), nl=False)
    return EXIT_OK
