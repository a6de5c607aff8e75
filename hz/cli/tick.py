"""`hz tick`: click wiring only; the work is in `hz.commands.tick`."""

from __future__ import annotations

from datetime import datetime

import click


@click.command()
@click.option("--now", "now", metavar="ISO", help="Pin the clock (UTC ISO 8601), for tests and demos.")
@click.option("--json", "as_json", is_flag=True, help="Print what the tick did as JSON.")
def tick(now: str | None, as_json: bool) -> int:
    """Run one tick: wake the Heinzelmännchen that are due and run each wake as one turn."""
    from hz.commands.tick import run_tick_command

    return run_tick_command(now=_parse_now(now), as_json=as_json)


def _parse_now(value: str | None) -> datetime | None:
    if value is None:
        return None
    from hz.commands.tick import parse_now

    return parse_now(value)
