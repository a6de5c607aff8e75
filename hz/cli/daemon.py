"""`hz daemon run`: click wiring only; the work is in `hz.commands.daemon`."""

from __future__ import annotations

import click


@click.group()
def daemon() -> None:
    """Run ticks in a loop (the machine's scheduler can call `hz tick` instead)."""


@daemon.command("run")
@click.option(
    "--interval", default=60.0, show_default=True, type=click.FloatRange(min=0.05), help="Seconds between ticks."
)
@click.option("--ticks", "max_ticks", type=click.IntRange(min=1), help="Stop after this many ticks.")
def run(interval: float, max_ticks: int | None) -> int:
    """Tick every --interval seconds until SIGTERM or ^C; the tick in progress always completes."""
    from hz.commands.daemon import run_daemon_command

    return run_daemon_command(interval_s=interval, max_ticks=max_ticks)
