"""`hz daemon run`: click wiring only; the work is in `hz.commands.daemon`."""

from __future__ import annotations

import math

import click

from hz.cli.serve import HOST, PORT

# The longest pause between two ticks: a daemon that ticks less than daily misses the slots it keeps,
# and the wait it sleeps in cannot take an unbounded timeout.
MAX_INTERVAL_S = 86_400.0


def _interval(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """FloatRange lets NaN through (every comparison with it is false); a NaN pause makes a busy loop."""
    if math.isnan(value):
        raise click.BadParameter("must be a number of seconds, not nan", ctx, param)
    return value


@click.group()
def daemon() -> None:
    """Run ticks in a loop (the machine's scheduler can call `hz tick` instead)."""


@daemon.command("run")
@click.option("--interval", default=60.0, show_default=True, callback=_interval,
              type=click.FloatRange(min=0.05, max=MAX_INTERVAL_S), help="Seconds between ticks.")  # fmt: skip
@click.option("--ticks", "max_ticks", type=click.IntRange(min=1), help="Stop after this many ticks.")
@click.option("--serve", "serving", is_flag=True, help="Also serve the pages, REST and MCP (as `hz serve`).")
@HOST
@PORT
def run(interval: float, max_ticks: int | None, serving: bool, host: str, port: int) -> int:
    """Tick every --interval seconds until SIGTERM or ^C; the tick in progress always completes."""
    from hz.commands.daemon import run_daemon_command

    return run_daemon_command(interval_s=interval, max_ticks=max_ticks, serve=(host, port) if serving else None)
