"""`hz drafts` and `hz reject`: click wiring only; the work is in `hz.commands.drafts` and `hz.review.decide`."""

from __future__ import annotations

import os
import sys

import click


@click.command()
@click.option("--json", "json_output", is_flag=True, help="Print JSON.")
@click.option("--all", "everywhere", is_flag=True, help="Every repository's drafts, each with its repository.")
def drafts(json_output: bool, everywhere: bool) -> int:
    """List every draft that waits for you (from the index), with where it is and its key."""
    from hz.commands.drafts import drafts_command
    from hz.commands.tick import repo_root

    return drafts_command(
        sys.stdout, json_output=json_output, environ=os.environ, root=repo_root(os.environ), everywhere=everywhere
    )


@click.command()
@click.argument("key")
def reject(key: str) -> int:
    """Reject one waiting draft by its key: it is recorded, and the draft is taken back."""
    from datetime import UTC, datetime

    from hz.review.decide import reject as reject_draft

    return reject_draft(key, environ=os.environ, now=datetime.now(UTC))
