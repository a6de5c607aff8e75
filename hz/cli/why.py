"""`hz why CONTRACT [SLOT]`: click wiring only; the work is in `hz.ops.why`, the text in `hz.commands.why`."""

from __future__ import annotations

import click


@click.command("why")
@click.argument("contract")
@click.argument("slot", required=False)
@click.option("--now", "now", metavar="ISO", help="Judge as of this time (UTC ISO 8601), for tests and demos.")
@click.option("--json", "json_output", is_flag=True, help="Print JSON.")
def why(contract: str, slot: str | None, now: str | None, json_output: bool) -> int:
    """Why a contract's slot ran as it did, or did not run: its fate, the lease, the grace period, upstream
    drafts waiting, a cap, the roles. SLOT is a UTC minute (2026-10-30T15:00Z); default: the latest due."""
    from hz.commands.why import why_command

    return why_command(contract, slot, now=now, json_output=json_output)
