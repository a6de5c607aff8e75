"""The pre-receive hook's command, `hz state lint --hook`, without click: git starts it once per push.

hz.cli.fastpath runs it for the exact words the installed hook uses (hz.gitstate.hook.install_hook), so a
push pays for Python, pygit2 and the lint, not for the command line's parser (tests/gitstate/test_hook.py).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping

from hz.diagnostic import render_all
from hz.errors import EXIT_ERROR, EXIT_OK, HzError

HOOK_ARGV = ("state", "lint", "--hook")
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # what click.echo strips from text bound for a pipe


def hook_command(stdin: Iterable[str], environ: Mapping[str, str] = os.environ) -> int:
    """Run as the remote's pre-receive hook: findings go to stderr, which git shows the pusher.

    This is a security gate, so it fails closed: anything that goes wrong while checking (a line git
    would not send, an object missing from the quarantine, a tag where a commit belongs, a path that
    is not UTF-8) refuses the push with one line, never a traceback or "hz hit a bug".
    """
    try:
        from hz.gitstate.hook import run_hook

        found = run_hook(stdin, environ)
        if found:
            report = render_all(found)
            _say("hz: the hz/state lint refuses this push:")
            _say(report)
    except Exception as exc:  # the one place a blanket catch is right: refuse, never crash
        _say(f"hz: HZS018 refusing this push: the hook could not check it ({_why(exc)})")
        return EXIT_ERROR
    return EXIT_ERROR if found else EXIT_OK


def _say(text: str) -> None:
    """One line to the pusher (git relays the hook's stderr), escape sequences removed as click removes them."""
    stream = sys.stderr
    print(text if stream.isatty() else _ANSI.sub("", text), file=stream, flush=True)


def _why(exc: Exception) -> str:
    """One short line naming what failed; the text is bounded, since it may quote the pusher's bytes."""
    detail = exc.message if isinstance(exc, HzError) else str(exc)
    line = " ".join(detail.split())[:160]
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__
