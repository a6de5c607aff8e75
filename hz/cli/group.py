"""The click side of the CLI: the root group whose sub-commands are imported by name on first use.

Kept apart from `hz.cli` so that importing the package (which holds the error boundary and the
entry point) does not import click: the idle `hz tick` fast path never needs it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from typing import Any

import click

from hz.cli import COMMANDS
from hz.errors import EXIT_INTERRUPTED, EXIT_OK


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


def invoke(argv: Sequence[str] | None) -> int:
    """Run the root group and turn click's own outcomes (usage errors, ^C) into exit codes."""
    try:
        result = root.main(args=list(argv) if argv is not None else None, prog_name="hz", standalone_mode=False)
    except click.Abort:  # click turns ^C (and EOF at a prompt) into Abort
        click.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    return result if isinstance(result, int) else EXIT_OK
