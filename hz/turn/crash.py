"""Named crash points: a test sets `HZ_CRASH_AT=<point>` and the process kills itself there with SIGKILL.

This is a real `kill -9` at an exact step boundary, so crash tests exercise what a dead laptop leaves
behind. Outside tests the variable is unset and a crash point costs one dictionary lookup.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

ENV = "HZ_CRASH_AT"


def crashpoint(name: str, environ: Mapping[str, str]) -> None:
    if environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
