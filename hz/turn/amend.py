"""An amendment the model proposes: its text kept in the turn body, the proposal recorded for the user.

Whether it widens the contract, and so is refused with HZC050 because the agent proposed it, is
decided with the agent's contract versions in `hz.heinzel`; the user decides the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hz.session.bodies import append_body
from hz.turn.engine import Deps, Turn
from hz.turn.journal import Journal


def propose(journal: Journal, turn: Turn, deps: Deps, amendment: Mapping[str, Any]) -> None:
    from hz.heinzel.turns import propose_from_turn

    amendment_id = f"am-{turn.id}"
    if any(e.kind.startswith("amendment.") and e.data.get("amendment_id") == amendment_id for e in journal.events()):
        return
    text = str(amendment["text"])
    append_body(journal.directory, turn.id, {"amendment": {"id": amendment_id, "text": text}})
    propose_from_turn(journal, turn.plan.agent_id, amendment_id, text, str(amendment.get("reason", "")), turn.id)
