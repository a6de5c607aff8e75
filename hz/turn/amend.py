"""An amendment the model proposes: its text kept in the turn body, the proposal recorded for the user.

Whether it widens the contract, and so is refused with HZC050 because the agent proposed it, is
decided with the agent's contract versions in `hz.heinzel`. For a personal contract the user decides
the rest with `hz approve`. A team contract is approved on main only (`hz.heinzel.main_versions`): an
amendment HZC050 did not refuse goes on the draft branch `hz/draft/<contract id>/contract`, its text at
the contract's path on the main the tick fetched, as that file's own text changed
(hz.review.amendment_branch; hz.review.branches, hz's trailers with `Hz-Output: contract`); the
proposal names that branch, the tick's one push carries it under the turn's lease and the forge opens
its pull request (hz.tick.team_push). Once the review merges it, every member's tick adopts the new
version and the next tick deletes the branch; `hz approve` refuses it and says so. Where no branch can
be made (no team state, the contract not found on main, git failing), the proposal is still recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
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
    reason = str(amendment.get("reason", ""))
    propose_from_turn(journal, turn.plan.agent_id, amendment_id, text, reason, turn.id, _review(turn, text))


def _review(turn: Turn, text: str) -> Callable[[], str | None] | None:
    """For a team contract under team state: what puts the amended text on its review branch."""
    plan = turn.plan
    if plan.scope != "team" or plan.root is None or _contract_id(plan) is None:
        return None
    return lambda: place_amendment(plan, text, turn.slot)


def _contract_id(plan: Any) -> str | None:
    contract_id = getattr(getattr(plan.contract, "frontmatter", None), "id", None)
    return str(contract_id) if contract_id else None


def place_amendment(plan: Any, text: str, slot: datetime) -> str | None:
    """Commit `text` (self-contained) as the team contract's file on main, changed, to its review branch
    `hz/draft/<contract id>/contract`, and return the branch; None where no branch can be made (no team
    state, the contract not on main, git failing): the proposal then stands without one. Shared by an
    agent's amendment and a person's `hz heinzel amend` (hz.tick.team_amend)."""
    from hz.errors import HzError
    from hz.heinzel.main_versions import contract_path
    from hz.review.amendment_branch import file_text
    from hz.review.branches import BranchTarget, base_ref
    from hz.review.drafts import Tag
    from hz.review.sync import team_remote
    from hz.turn.causes import format_slot, place_draft_key

    root, contract = plan.root, _contract_id(plan)
    if root is None or contract is None or team_remote(root) is None:  # no team state: nothing would push it
        return None
    base = base_ref(root)
    path = contract_path(root, base, contract)
    if path is None:
        return None
    key = place_draft_key(plan.agent_id, plan.version, format_slot(slot), "contract")
    try:
        target = BranchTarget.create(root, contract, "contract", f"state:{path}", slot)
        target.write(Tag(plan.name, plan.version, key), file_text(root, base, path, text))
    except HzError:  # the proposal stands without its branch; `hz approve` says how to go on
        return None
    return str(target.place)
