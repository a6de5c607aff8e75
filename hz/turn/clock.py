"""The clock a turn's events are stamped with: the tick's moment plus the time this process has run since.

A tick is a function of (state, now): `now` may be pinned (`hz tick --now`, tests) or the wall clock when
the tick began. Stamping every event with that one moment made a turn that took seconds read 0.0 s, and
a wait after it read as running time. So events take `now` plus the monotonic time elapsed since the
tick began: real, increasing times under the wall clock, and still reproducible under a pinned one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta


def running_from(start: datetime) -> Callable[[], datetime]:
    """A clock that reads `start` now and moves on with this process's monotonic clock."""
    origin = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - origin)
