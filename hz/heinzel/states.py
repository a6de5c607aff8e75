"""The states of a Heinzelmännchen and which user action may move it where.

The index derives the state from events (`hz.session.projection`): proposed until version 1 is
approved; retired and paused by the user; awake while a turn runs; waiting while a turn waits or a
draft, question or amendment awaits the user; asleep otherwise. The user's actions below only write
the events; these rules say when an action makes sense.
"""

from __future__ import annotations

from hz.errors import HzError

STATES = ("proposed", "asleep", "awake", "waiting", "paused", "retired")

# action -> the states it may start from
ALLOWED: dict[str, frozenset[str]] = {
    "approve": frozenset({"proposed"}),
    "retire": frozenset({"proposed", "asleep", "awake", "waiting", "paused"}),
    "unretire": frozenset({"retired"}),
    "pause": frozenset({"asleep", "awake", "waiting"}),
    "unpause": frozenset({"paused"}),
    "rename": frozenset(STATES),
    "amend": frozenset({"asleep", "awake", "waiting", "paused"}),
}


class WrongState(HzError):
    """An action that does not apply to the agent's current state."""


def require(action: str, name: str, state: str) -> None:
    if state not in ALLOWED[action]:
        allowed = ", ".join(s for s in STATES if s in ALLOWED[action])
        raise WrongState(f"{name} is {state}; {action} applies only when it is {allowed}")
