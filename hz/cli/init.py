"""`hz init`: click wiring only; the work is in `hz.commands.init`."""

from __future__ import annotations

import click


@click.command()
@click.option("--owner", help="Default owner of the team's contracts, @handle (default: your configured handle).")
def init(owner: str | None) -> int:
    """Scaffold a team repository: hz.toml, workflows/, policies/, CODEOWNERS, GitHub Actions workflows and
    pre-commit hooks. Existing files are kept; it ends with the next steps."""
    from hz.commands.init import run_init

    return run_init(owner=owner)
