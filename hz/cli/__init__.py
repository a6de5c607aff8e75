"""The `hz` command line: the root group, lazy sub-commands and the one error boundary.

Sub-command modules are imported only when they are invoked, so `hz tick` on an idle machine does not
pay for pydantic, pygit2 or ruamel. Each module under `hz.cli` holds click wiring only and calls a
function in `hz.commands` (or a package) that returns an exit code.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from hz.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_OK, HzError

# name -> "module:attribute" of a click command or group
COMMANDS: dict[str, str] = {
    "init": "hz.cli.init:init",
    "workflow": "hz.cli.workflow:workflow",
    "graph": "hz.cli.graph:graph",
    "codeowners": "hz.cli.codeowners:codeowners",
    "state": "hz.cli.state:state",
    "lease": "hz.cli.lease:lease",
    "heinzel": "hz.cli.heinzel:heinzel",
    "source": "hz.cli.source:source",
    "drafts": "hz.cli.drafts:drafts",
    "approve": "hz.cli.approve:approve",
    "reject": "hz.cli.drafts:reject",
    "tick": "hz.cli.tick:tick",
    "daemon": "hz.cli.daemon:daemon",
}


def _available(target: str) -> bool:
    return importlib.util.find_spec(target.partition(":")[0]) is not None


class LazyGroup(click.Group):
    """A group whose sub-commands are imported on first use."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        names.update(name for name, target in self.lazy.items() if _available(target))
        return sorted(names)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy.get(cmd_name)
        if target is None or not _available(target):
            return super().get_command(ctx, cmd_name)
        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command), target
        return command


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="hz", prog_name="hz")
def root() -> None:
    """hz keeps a team's Markdown contracts true with durable agents (Heinzelmännchen)."""


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code; every exception is mapped here and nowhere else."""
    try:
        result = root.main(args=list(argv) if argv is not None else None, prog_name="hz", standalone_mode=False)
    except HzError as exc:
        click.echo(exc.render(), err=True)
        return exc.exit_code
    except (click.Abort, KeyboardInterrupt):
        click.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except Exception:
        log = _write_crash_log()
        click.echo(f"hz hit a bug; the traceback is in {log}", err=True)
        return EXIT_BUG
    return result if isinstance(result, int) else EXIT_OK


def main(argv: Sequence[str] | None = None) -> NoReturn:
    sys.exit(run(argv))


def _write_crash_log() -> Path:
    import traceback
    from datetime import UTC, datetime

    from hz.config import hz_home
    from hz.fsio import atomic_write

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = hz_home() / "logs" / f"crash-{stamp}-{os.getpid()}.log"
    try:
        atomic_write(path, traceback.format_exc())
    except OSError:
        traceback.print_exc()
    return path
