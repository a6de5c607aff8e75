"""A deadline for tests of things that must never hang (a FIFO, /dev/zero): fail instead of waiting."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Raise TimeoutError after `seconds`: SIGALRM interrupts a blocking open or read (main thread only)."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"took longer than {seconds}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
