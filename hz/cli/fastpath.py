"""A shortcut past click for the command an idle machine runs most: `hz tick`, every few minutes.

Only the plainest spellings take it: `tick`, then any of `--json`, `--now ISO`, `--now=ISO`, each at most
once. Anything else (help, a repeated or unknown option, a value that looks like an option) goes to
click, which owns usage errors. The shortcut calls the same work function as the click command, and
the boundary in `hz.cli` maps its errors, so output, stderr and exit codes are the same on both paths.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence


def tick_arguments(argv: Sequence[str]) -> tuple[str | None, bool] | None:
    """`(now, as_json)` when `argv` is a plain `tick [--now ISO] [--json]`, otherwise None."""
    if not argv or argv[0] != "tick":
        return None
    now: str | None = None
    as_json = False
    rest = list(argv[1:])
    while rest:
        word = rest.pop(0)
        if word == "--json" and not as_json:
            as_json = True
        elif word.startswith("--now=") and now is None:
            now = word.removeprefix("--now=")
        elif word == "--now" and now is None and rest and not rest[0].startswith("-"):
            now = rest.pop(0)
        else:
            return None
    return now, as_json


def fast_tick(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> Callable[[], int] | None:
    """The work of a plain `hz tick` as a function, or None when click has to parse `argv`."""
    parsed = tick_arguments(argv)
    if parsed is None or "_HZ_COMPLETE" in environ:  # a shell asking click to complete the command line
        return None
    now, as_json = parsed

    def work() -> int:
        from hz.commands.tick import parse_now, run_tick_command

        try:
            return run_tick_command(now=None if now is None else parse_now(now), as_json=as_json)
        except KeyboardInterrupt:
            print(file=sys.stderr)  # click starts a new line after ^C; so does the shortcut
            raise

    return work
