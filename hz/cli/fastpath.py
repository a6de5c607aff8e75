"""Shortcuts past click for the commands run most often as fresh processes: `hz tick`, every few minutes
on an idle machine, `hz workflow validate`, on every commit as a pre-commit hook, and `hz state lint
--hook`, on every push to a guarded remote.

Only the plainest spellings take them: `tick`, then any of `--json`, `--now ISO`, `--now=ISO`, each at
most once; `workflow validate`, then paths and at most one `--json`. Anything else (help, a repeated or
unknown option, a word that looks like an option) goes to click, which owns usage errors. A shortcut
calls the same work function as the click command, and the boundary in `hz.cli` maps its errors, so
output, stderr and exit codes are the same on both paths.
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


def fast_work(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> Callable[[], int] | None:
    """The work of a plain `hz tick` or `hz workflow validate` as a function, or None for click."""
    return fast_tick(argv, environ) or fast_validate(argv, environ) or fast_hook(argv, environ)


def fast_hook(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> Callable[[], int] | None:
    """The pre-receive hook, `state lint --hook` exactly as hz.gitstate.hook.install_hook writes it: git
    starts it on every push, and click's import would be a third of what an accepted push costs."""
    if tuple(argv) != ("state", "lint", "--hook") or "_HZ_COMPLETE" in environ:
        return None

    def work() -> int:
        from hz.commands.state_hook import hook_command

        return hook_command(sys.stdin, environ)

    return work


def validate_arguments(argv: Sequence[str]) -> tuple[list[str], bool] | None:
    """`(paths, as_json)` when `argv` is a plain `workflow validate [--json] [PATH…]`, otherwise None."""
    if list(argv[:2]) != ["workflow", "validate"]:
        return None
    paths: list[str] = []
    as_json = False
    for word in argv[2:]:
        if word == "--json" and not as_json:
            as_json = True
        elif word and not word.startswith("-"):
            paths.append(word)
        else:  # help, `--`, another option, a path spelled like one or an empty word: click decides
            return None
    return paths, as_json


def fast_validate(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> Callable[[], int] | None:
    """The work of a plain `hz workflow validate` as a function, or None when click has to parse `argv`."""
    parsed = validate_arguments(argv)
    if parsed is None or "_HZ_COMPLETE" in environ:
        return None
    paths, as_json = parsed

    def work() -> int:
        from pathlib import Path

        _without_pydantic_plugins()
        from hz.commands.workflow_validate import run_validate

        try:
            return run_validate([Path(path) for path in paths], as_json=as_json)
        except KeyboardInterrupt:
            print(file=sys.stderr)
            raise

    return work


def _without_pydantic_plugins() -> None:
    """Skip pydantic's search for plugins in this short process, which builds only hz's contract models.

    The first model pydantic builds imports `importlib.metadata` and reads the entry points of every
    installed distribution to find plugins: about 20 ms of the 250 ms a pre-commit run may take. Plugins
    (observability, mostly) have nothing to watch in a validation; a process that already loaded the
    real loader keeps it. pydantic imports only `get_plugins` from that module
    (tests/test_validate_fastpath.py checks it against the installed pydantic).
    """
    import types

    name = "pydantic.plugin._loader"
    if name not in sys.modules:
        stub = types.ModuleType(name, "hz: no pydantic plugins in a `hz workflow validate` process")
        stub.get_plugins = tuple  # type: ignore[attr-defined]  # called with no arguments: no plugins
        sys.modules[name] = stub


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
