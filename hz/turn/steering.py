"""Single flight and steering: one turn at a time per agent, and messages that reach the running turn.

Every message is in the agent's inbox (`hz.session.inbox`) before anything acts on it. The turn that
holds the spine's lock takes new messages in at each step boundary and before each model request: during
gather and think a message is `turn.steered` and reaches the model with its next request; from act on,
or when its sender asked for "after this" (`when_busy: follow-up`), it is `turn.requested` and becomes
the next turn. When the turn ends, all requested causes run as one follow-up turn, never in parallel.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from hz.fsio import atomic_write
from hz.session.inbox import Request, list_requests
from hz.turn import history
from hz.turn.causes import asked_key
from hz.turn.engine import Deps, Turn
from hz.turn.journal import Journal

_STEERABLE = frozenset({"gather", "think"})


def wanted(turn: Turn) -> frozenset[str]:
    """The outcome kinds this turn may produce."""
    if turn.cause == "approval":
        return frozenset({"lessons", "nothing"})
    if set(turn.causes) == {"discovered"}:  # nothing to draft: only a proposal to read more, for the user
        return frozenset({"question", "amendment", "nothing"})
    return frozenset({"draft", "question", "amendment", "nothing"})


def new_requests(journal: Journal) -> list[Request]:
    requests = list_requests(journal.directory)
    if not requests:  # the common case: nothing to compare with the spine
        return []
    events = journal.events()
    taken = history.taken_requests(events)
    keys = history.started_keys(events) | history.settled_keys(events) | history.requested_keys(events)
    return [r for r in requests if r.request_id not in taken and (r.key is None or r.key not in keys)]


def take_requests(journal: Journal, turn: Turn, step: str, deps: Deps) -> list[Request]:
    """Journal the inbox's new messages at a step boundary; return those that steer this turn."""
    steered: list[Request] = []
    for request in new_requests(journal):
        if request.cause is not None and request.key is not None:  # a tick's wake: the next turn's cause
            journal.append("turn.requested", {"cause": request.cause, "key": request.key}, turn=turn.id, key=None)
        elif step in _STEERABLE and request.when_busy == "steer":
            journal.append(
                "turn.steered", {"request_id": request.request_id, "hash": request.hash}, turn=turn.id, key=None
            )
            steered.append(request)
        else:
            key = asked_key(turn.plan.agent_id, request.request_id)
            journal.append("turn.requested", {"cause": "asked", "key": key}, turn=turn.id, key=None)
    return steered


def answers(journal: Journal, request: Request) -> bool:
    """A message while a turn waits for the user's answer is that answer (question.answered), not a new turn."""
    for open_turn in history.open_turns(journal.events()):
        on = open_turn.waiting.data.get("on") if open_turn.waiting is not None else None
        if isinstance(on, dict) and on.get("kind") == "answer":
            data = {"key": on["key"], "request_id": request.request_id, "hash": request.hash}
            journal.append("question.answered", data, turn=open_turn.turn, key=None)
            return True
    return False


def steered_texts(journal: Journal, turn: Turn) -> list[str]:
    """The words of every message steered into this turn so far, oldest first."""
    ids = [str(e.data["request_id"]) for e in journal.events() if e.kind == "turn.steered" and e.turn == turn.id]
    by_id = {r.request_id: r.text for r in list_requests(journal.directory)}
    return [by_id[i] for i in ids if i in by_id]


def steering_feed(journal: Journal, turn: Turn, deps: Deps) -> Callable[[], list[str]]:
    """What the runner drains before each next model request."""

    check = stop_check(journal, turn)

    def drain() -> list[str]:
        check()
        return [r.text for r in take_requests(journal, turn, "think", deps)]

    return drain


def stop_check(journal: Journal, turn: Turn) -> Callable[[], None]:
    """What a runner asks while one long request runs (a CLI run): `hz heinzel stop` ends it there."""

    def check() -> None:
        if stop_requested(journal):
            raise Stopped(turn.id)

    return check


STOP_FILE = "stop"


class Stopped(Exception):
    """`hz heinzel stop` asked the running turn to end; raised out of the runner at its next request."""


def request_stop(agent_dir: Path, now: datetime) -> None:
    atomic_write(agent_dir / STOP_FILE, now.isoformat())


def stop_requested(journal: Journal) -> bool:
    return (journal.directory / STOP_FILE).exists()


def clear_stop(journal: Journal) -> None:
    (journal.directory / STOP_FILE).unlink(missing_ok=True)
