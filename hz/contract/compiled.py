"""What one tick compiled, kept for the rest of that tick: each contract text is compiled once.

A drafting tick met every team contract three times: compiled from the work tree (the tick's projection
of the repository), from its agent's stored version (the turn's plan) and from `main` (the publishes of a
receipt), and its frontmatter was read four more times for main's declarations (the approval sweep, the
watch, the claim's roles). The three compiles are of the same text under different labels, and a compile
depends only on the text, the namespace, the defaults and the file stem, never on where the text came
from. Inside `shared()` (a whole tick, hz.tick.daemon) those results are kept by what they depend on.
A read whose answer the tick fixes at its start uses the same block (`hz.review.sync.fetched_main`).

Kept for one tick only, not for the process: a daemon or the web server running for days would
otherwise hold every version it ever read, and a test that changes what a compile finds would be
answered from an earlier test. Nothing heavy is imported here: the idle tick enters `shared()` too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from typing import Any

_ACTIVE: ContextVar[dict[Hashable, Any] | None] = ContextVar("hz_shared_compiles", default=None)


@contextlib.contextmanager
def shared() -> Iterator[None]:
    """Compiles inside are kept until the block ends (a block inside another shares the outer one's)."""
    if _ACTIVE.get() is not None:
        yield
        return
    token = _ACTIVE.set({})
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def kept(key: Hashable, make: Callable[[], Any]) -> Any:
    """`make()`, or what it gave for `key` earlier in this block; outside a block always `make()`."""
    memo = _ACTIVE.get()
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


def peek(key: Hashable) -> Any:
    """What this block kept for `key`, None when nothing (or outside a block)."""
    memo = _ACTIVE.get()
    return None if memo is None else memo.get(key)


def keep(key: Hashable, value: Any) -> None:
    memo = _ACTIVE.get()
    if memo is not None:
        memo.setdefault(key, value)
