"""The `hz` command line: the entry point, the registry of lazy sub-commands and the one error boundary.

Sub-command modules are imported only when they are invoked, so `hz tick` on an idle machine does not
pay for pydantic, pygit2 or ruamel. Each module under `hz.cli` holds click wiring only and calls a
function in `hz.commands` (or a package) that returns an exit code.

This module does not import click: the root group lives in `hz.cli.group`, and the console entry point
(`main`) runs a plain `hz tick [--now ISO] [--json]` and `hz workflow validate [--json] [PATH…]` without
click at all (`hz.cli.fastpath`), because click's import is a large share of a fresh idle tick and of a
pre-commit hook's run. Everything else goes through click.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from hz.errors import EXIT_BUG, EXIT_ERROR, EXIT_INTERRUPTED, HzError

if TYPE_CHECKING:
    from hz.cli.group import LazyGroup, root

__all__ = ["COMMANDS", "LazyGroup", "main", "root", "run"]

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
    "explain": "hz.cli.explain:explain",
    "serve": "hz.cli.serve:serve",
    "mcp": "hz.cli.mcp:mcp",
    "why": "hz.cli.why:why",
}


def __getattr__(name: str) -> Any:
    """`hz.cli.root` and `hz.cli.LazyGroup` still resolve, importing click only when asked for."""
    if name in ("root", "LazyGroup"):
        from hz.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI through click and return its exit code; every exception is mapped here."""

    def through_click() -> int:
        from hz.cli.group import invoke

        return invoke(argv)

    return guarded(through_click)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """The console entry point (`hz`, `python -m hz`)."""
    args = sys.argv[1:] if argv is None else list(argv)
    from hz.cli.fastpath import fast_work

    work = fast_work(args)
    _fill_closed_streams()
    sys.exit(run(args) if work is None else guarded(work))


def _fill_closed_streams() -> None:
    """Started with stdout or stderr closed (`hz tick >&-`), Python has None for the stream and every
    print would crash; such output goes nowhere instead, and the work is still done."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


def guarded(work: Callable[[], int]) -> int:
    """The error boundary: HzError -> its code, ^C -> 130, anything unforeseen -> 3 with a crash log.

    What it prints or logs is scrubbed of the environment's secrets: an error may quote a server's words.
    """
    try:
        return work()
    except HzError as exc:
        from hz.secrets import scrub

        print(scrub(exc.render()), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if isinstance(exc, OSError) and (said := _environment_failed(exc)) is not None:
            print(said, end="", file=sys.stderr)
            return EXIT_ERROR
        log = _write_crash_log()
        where = "above (no crash log could be written)" if log is None else f"in {log}"
        print(f"hz hit a bug; the traceback is {where}", file=sys.stderr)
        return EXIT_BUG


def _environment_failed(exc: OSError) -> str | None:
    """What to say when a write failed for a reason outside hz: the reader of a pipe left (`hz … | head`),
    or the disk is full (`hz … > /dev/full`). None: any other OSError, a bug."""
    import errno

    if exc.errno == errno.EPIPE and _reader_gone(sys.stdout):  # the rest stops quietly, as with other tools
        devnull = os.open(os.devnull, os.O_WRONLY)  # so the flush at exit does not fail again
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"error: hz could not write: {exc.strerror}\n  hint: free some space, then run it again\n"
    return None


def _reader_gone(stream: Any) -> bool:
    """Whether `stream` is a pipe nobody reads any more (a broken pipe to git is a bug, not this)."""
    import select

    try:
        poller = select.poll()
        poller.register(stream.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def _write_crash_log() -> Path | None:
    """The crash log's path; None when it could not be written (the traceback went to stderr then), so
    the message never names a log that does not exist."""
    import traceback
    from datetime import UTC, datetime

    from hz.config import private_home
    from hz.fsio import atomic_write
    from hz.secrets import scrub

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    trace = scrub(traceback.format_exc())
    try:  # a home others can write is refused here too: they could read the log or plant its folder
        path = private_home() / "logs" / f"crash-{stamp}-{os.getpid()}.log"
        atomic_write(path, trace)
    except (OSError, HzError):
        print(trace, end="", file=sys.stderr)
        return None
    return path
