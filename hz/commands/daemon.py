"""`hz daemon run`: ticks in a loop with a clean shutdown on SIGTERM."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from hz.errors import EXIT_OK


def run_daemon_command(
    *,
    interval_s: float,
    max_ticks: int | None,
    environ: Mapping[str, str] = os.environ,
    serve: tuple[str, int] | None = None,
) -> int:
    """`serve`: (host, port) to serve the web head on while ticking (`hz daemon run --serve`)."""
    from hz.commands.tick import render_report, repo_root
    from hz.tick.daemon import run_daemon
    from hz.tick.report import TickReport

    def show(report: TickReport) -> None:
        for line in render_report(report):
            if line != "nothing due":
                print(line, flush=True)

    server = None
    if serve is not None:
        from hz.web.serve import Options, in_background

        server = in_background(Options(*serve), environ, sys.stdout)
    try:
        ticks = run_daemon(
            root=repo_root(environ), interval_s=interval_s, environ=environ, on_tick=show, max_ticks=max_ticks
        )
    finally:
        if server is not None:
            server.stop()
    print(f"daemon stopped after {ticks} tick{'s' if ticks != 1 else ''}", file=sys.stderr, flush=True)
    return EXIT_OK
