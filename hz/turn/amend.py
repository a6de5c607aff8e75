"""An amendment the model proposes: its text kept in the turn body, the proposal recorded for the user.

Whether it widens the contract, and so is refused with HZC050 because the agent proposed it, is
decided with the agent's contract versions in `hz.heinzel`; the user decides the rest. For a personal
contract that is `hz approve`. A team contract is approved on main only (`hz.heinzel.main_versions`),
so its amendment waits, recorded and shown as proposed, for a pull request; `hz approve` refuses it
and says so.

TODO(R-branches): a team contract's amendment that HZC050 did not refuse goes on the branch
`hz/draft/<contract id>/contract` (its text at the contract's path on the fetched main, hz's trailers
with `Hz-Output: contract`), pushed by the tick's one push under the turn's lease, and the forge
opens its pull request. It needs the tick's push to carry a branch that no `draft.placed` names
(hz.tick.team.record) and the approval sweep to leave it out of the output drafts it judges.
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
