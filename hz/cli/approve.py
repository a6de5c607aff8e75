"""`hz approve ITEM` (click wiring only)."""

from __future__ import annotations

import os
import sys

import click


@click.command("approve")
@click.argument("item")
def approve(item: str) -> int:
    """Approve a proposed Heinzelmännchen, an amendment (am-…) or a draft by its key."""
    from hz.commands.approve import approve_command

    return approve_command(sys.stdout, item, environ=os.environ)
