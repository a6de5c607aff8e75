"""`hz state`: read and guard the team's `hz/state` branch (click wiring only)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hz.gitstate.remote_spec import remote_option


@click.group()
def state() -> None:
    """The team's receipt-grade events on the hz/state branch."""


@state.command("log")
@click.option("--id", "hz_id", metavar="ID", help="Only the events of this Heinzelmännchen.")
@click.option(
    "--remote",
    callback=remote_option,
    help="Remote name or URL (default: [state] remote of hz.toml, else origin).",
)
@click.option("--no-fetch", is_flag=True, help="Read what was fetched last instead of asking the remote.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--since", metavar="AGE", help="Only events of the last AGE (30m, 12h, 1d, 2w): reads that window, "
              "not the whole history.")  # fmt: skip
def log(hz_id: str | None, remote: str | None, no_fetch: bool, as_json: bool, since: str | None) -> int:
    """Show the events on hz/state, oldest first, with who ran them (holder, role); VOID marks a write with a
    stale fencing token. Archived events are read from history, where they were added."""
    from hz.commands.state_log import log_command, since_option
    from hz.repo import find_root

    window = since_option(since) if since is not None else None
    return log_command(find_root(), remote, hz_id, as_json, not no_fetch, os.environ, window)


@state.command("compact")
@click.option(
    "--remote",
    callback=remote_option,
    help="Remote name or URL (default: [state] remote of hz.toml, else origin).",
)
@click.option("--keep", "keep_days", type=int, default=1, show_default=True, metavar="DAYS",
              help="Closed work older than this many days moves to the archive (at least 1).")  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Say what would move; push nothing.")
def compact(remote: str | None, keep_days: int, dry_run: bool) -> int:
    """Move closed work older than --keep days off the tip of hz/state into its archive (history plus an index
    per month; a mark per event for the week it may still be sent again). Also the one-step migration of a
    branch written before the archive existed. Run it daily."""
    from hz.commands.state_compact import compact_command
    from hz.repo import find_root

    return compact_command(find_root(), remote, keep_days, dry_run, os.environ)


@state.command("lint")
@click.option("--range", "span", metavar="A..B", help="Lint only the commits in A..B (default: all of hz/state).")
@click.option(
    "--since",
    metavar="COMMIT",
    help="Lint only the commits after COMMIT, a tip linted before (all of hz/state when it is all zeros, "
    "not in this clone, or not an ancestor).",
)
@click.option("--hook", is_flag=True, help="Run as a pre-receive hook: read ref updates on stdin.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def lint(span: str | None, since: str | None, hook: bool, as_json: bool) -> int:
    """Refuse text, unknown kinds and fields, addresses and rewrites on hz/state."""
    from hz.commands.state_lint import hook_command, lint_command

    if hook:
        return hook_command(sys.stdin, os.environ)
    from hz.repo import find_root

    return lint_command(find_root(), span, as_json, since)


@state.command("install-hook")
@click.argument("bare", type=click.Path(exists=True, file_okay=False, path_type=Path))
def install_hook(bare: Path) -> int:
    """Install the pre-receive hook into a bare (self-hosted) remote so it enforces the lint."""
    from hz.commands.state_lint import install_hook_command

    return install_hook_command(bare)
