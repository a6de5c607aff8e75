"""A turn's checkpoints: each finished step recorded as `turn.step`, and a turn rebuilt from them.

A resumed turn is `restore`d from its checkpoints and its body; a retry forks its parent's gather
(`fork_gather`) instead of fetching the inputs again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hz.session.bodies import append_body, read_body
from hz.turn import history
from hz.turn.engine import Gathered, Turn, turn_slot
from hz.turn.journal import Journal
from hz.turn.plan import Plan

# The outcome kinds `turn.step` may name (a summary is recorded as its own event).
STEP_OUTCOMES = frozenset({"draft", "lessons", "amendment", "question", "nothing"})


def restore(journal: Journal, open_turn: history.OpenTurn, plan: Plan) -> Turn:
    turn = Turn(open_turn.turn, plan, open_turn.started, turn_slot(open_turn.started))
    turn.steps = list(open_turn.steps)
    for record in read_body(journal.directory, turn.id).records:
        if "slot" in record:
            turn.slot = datetime.fromisoformat(record["slot"])
        if "gather" in record:
            turn.gathered = Gathered(record["gather"]["values"], record["gather"]["fingerprints"])
        elif "outcome" in record:
            turn.outcome, turn.usage = record["outcome"], record.get("usage", {})
    return turn


def fork_gather(journal: Journal, turn: Turn, parent: str) -> None:
    """A retry starts after its parent's gather: the same inputs, not fetched again."""
    for record in read_body(journal.directory, parent).records:
        if "gather" in record:
            turn.gathered = Gathered(record["gather"]["values"], record["gather"]["fingerprints"])
            append_body(journal.directory, turn.id, {"gather": record["gather"]})
            fingerprints = {k: v for k, v in turn.gathered.fingerprints.items() if v.startswith("sha256:")}
            checkpoint(journal, turn, "gather", inputs=fingerprints)
            return


def checkpoint(journal: Journal, turn: Turn, step: str, **data: Any) -> None:
    journal.append("turn.step", {"step": step, **data}, turn=turn.id, key=None)
    turn.steps.append(step)
