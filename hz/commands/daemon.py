"""`hz daemon run`: ticks in a loop with a clean shutdown on SIGTERM."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from hz.errors import EXIT_OK


def run_daemon_command(*, interval_s: float, max_ticks: int | None, environ: Mapping[str, str] = os.environ) -> int:
    from hz.commands.tick import render_report, repo_root
    from hz.tick.daemon import run_daemon
    from hz.tick.report import TickReport

    def show(report: TickReport) -> None:
        for line in render_report(report):
            if line != "nothing due":
                print(line, flush=True)

    ticks = run_daemon(
        root=repo_root(environ), interval_s=interval_s, environ=environ, on_tick=show, max_ticks=max_ticks
    )
    print(f"daemon stopped after {ticks} tick{'s' if ticks != 1 else ''}", file=sys.stderr, flush=True)
    return EXIT_OK
