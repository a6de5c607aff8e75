"""`hz codeowners`: click wiring only; the work is in `hz.commands.codeowners`."""

from __future__ import annotations

import click


@click.command()
@click.option("--write", is_flag=True, help="Write hz's block of the CODEOWNERS GitHub reads; other lines stay.")
@click.option("--check", is_flag=True, help="Exit 1 and print a diff when CODEOWNERS is out of date.")
@click.option("--json", "as_json", is_flag=True, help="Print each contract file with its owners as JSON.")
def codeowners(write: bool, check: bool, as_json: bool) -> int:
    """CODEOWNERS generated from hz.owner and hz.maintainers of the team's contracts."""
    from hz.commands.codeowners import run_codeowners

    if write and check:
        raise click.UsageError("--write and --check exclude each other")
    return run_codeowners(write=write, check=check, as_json=as_json)
