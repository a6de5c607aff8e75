"""`hz drafts` and `hz reject`: click wiring only; the work is in `hz.ops.drafts` and `hz.ops.decide`."""

from __future__ import annotations

import os
import sys

import click


@click.command()
@click.option("--json", "json_output", is_flag=True, help="Print JSON.")
@click.option("--all", "everywhere", is_flag=True, help="Every repository's drafts, each with its repository.")
def drafts(json_output: bool, everywhere: bool) -> int:
    """List every draft that waits: yours (from the index) and the team's (from its remote), with their keys."""
    from hz.commands.drafts import drafts_command
    from hz.commands.tick import repo_root

    return drafts_command(
        sys.stdout, json_output=json_output, environ=os.environ, root=repo_root(os.environ), everywhere=everywhere
    )


@click.command()
@click.argument("key")
def reject(key: str) -> int:
    """Reject one waiting draft by its key: it is recorded, and the draft is taken back (a team draft's
    pull request closed and its branch deleted on the team remote)."""
    from hz.ops import Context
    from hz.ops.decide import reject as reject_draft
    from hz.ops.models_actions import RejectRequest

    click.echo(reject_draft(Context.here(os.environ), RejectRequest(key=key))["said"])
    return 0
