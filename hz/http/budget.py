"""How long remote requests may take: each one, and all of one tick's together.

A request's deadline runs from its first byte out to its last byte in; a tick's deadline bounds the
sum of its requests and of the rate-limit waits between them, so a server answering every request
slowly (or asking to wait) holds a tick for `HZ_TICK_REMOTE_S` at most, whatever the number of requests.
Both are read from the environment; a value that is no positive number leaves the default. Kept apart
from the client so that the tick can open its budget without importing an HTTP library.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

REQUEST_S = 60.0  # one request, from connecting to its last byte
TICK_S = 180.0  # all remote requests of one tick, and the rate-limit waits between them


class TickBudget:
    """A plain class, not a dataclass: every tick opens one, and an idle tick stays clear of `dataclasses`."""

    __slots__ = ("end", "seconds")

    def __init__(self, end: float, seconds: float) -> None:
        self.end = end  # time.monotonic() when the tick's remote time is spent
        self.seconds = seconds  # as configured, for messages


_TICK: ContextVar[TickBudget | None] = ContextVar("hz_tick_remote_budget", default=None)


def positive(text: str | None, default: float) -> float:
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


@contextmanager
def tick_budget(environ: Mapping[str, str]) -> Iterator[TickBudget]:
    """The remote time of one tick: every request made inside ends by the budget's end."""
    seconds = positive(environ.get("HZ_TICK_REMOTE_S"), TICK_S)
    budget = TickBudget(time.monotonic() + seconds, seconds)
    token = _TICK.set(budget)
    try:
        yield budget
    finally:
        _TICK.reset(token)


def current() -> TickBudget | None:
    return _TICK.get()


def tick_left() -> float | None:
    """Seconds left of the tick's remote time; None outside a tick (a command run by hand)."""
    budget = _TICK.get()
    return None if budget is None else budget.end - time.monotonic()


def may_wait(seconds: float) -> bool:
    """Whether a rate-limit wait of `seconds` fits in what is left of the tick's remote time."""
    left = tick_left()
    return left is None or seconds < left
