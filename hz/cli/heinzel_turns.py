"""`hz heinzel wake|chat|retry|resume|stop NAME`: click wiring only; the work is in `hz.commands.heinzel_turns`."""

from __future__ import annotations

import os
import sys
from datetime import datetime

import click

from hz.cli import params

_AFTER = click.option("--after", is_flag=True, help="If it is awake, run this as the next turn instead of steering.")
_NOW = click.option("--now", "now", metavar="ISO", help="Pin the clock (UTC ISO 8601), for tests and demos.")


def _moment(value: str | None) -> datetime | None:
    if value is None:
        return None
    from hz.commands.tick import parse_now

    return parse_now(value)


@click.command()
@click.argument("name")
@_NOW
def wake(name: str, now: str | None) -> int:
    """Start a turn of cause asked now (or as the next turn, if it is awake)."""
    from hz.commands.heinzel_turns import wake_command

    return wake_command(sys.stdout, name, after=True, environ=os.environ, now=_moment(now))


@click.command()
@click.argument("name")
@click.argument("message")
@_AFTER
@_NOW
def chat(name: str, message: str, after: bool, now: str | None) -> int:
    """Say something to a Heinzelmännchen: a turn of its own, or steering for the turn that runs."""
    from hz.commands.heinzel_turns import chat_command

    return chat_command(sys.stdout, name, message, after=after, environ=os.environ, now=_moment(now))


@click.command()
@click.argument("name")
@click.argument("hint", default="try again", callback=params.sentence)
@_NOW
def retry(name: str, hint: str, now: str | None) -> int:
    """Run the last turn again from after its gather step, with a hint ("shorter")."""
    from hz.commands.heinzel_turns import retry_command

    return retry_command(sys.stdout, name, hint, environ=os.environ, now=_moment(now))


@click.command()
@click.argument("name")
@_NOW
def resume(name: str, now: str | None) -> int:
    """Resume a waiting turn now, whatever it waits for."""
    from hz.commands.heinzel_turns import resume_command

    return resume_command(sys.stdout, name, environ=os.environ, now=_moment(now))


@click.command()
@click.argument("name")
def stop(name: str) -> int:
    """Stop the running or waiting turn: it ends abandoned; queued messages wait for the next turn."""
    from hz.commands.heinzel_turns import stop_command

    return stop_command(sys.stdout, name, environ=os.environ)
