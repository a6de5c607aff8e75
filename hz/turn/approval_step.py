"""The gather step of an approval turn: the draft as placed, the text as approved, and their diff.

The turn that learns from a reviewer's edits (ADR 0049, lessons). A personal draft's approved text is
read where it was placed (the work tree, its tag gone); a team draft's is the text on the fetched `main`
whose fingerprint the team's `approval.observed` on `hz/state` holds (hz.review.approval_sweep), so a
squash or an edit before the merge is what the model compares with. The spine records the approval here
unless the tick's bookkeeping did already.
"""

from __future__ import annotations

from typing import Any

from hz.canonical import fingerprint_bytes
from hz.review import approvals
from hz.session.bodies import append_body
from hz.turn.engine import Deps, Gathered, Turn
from hz.turn.journal import Journal


def gather_approval(journal: Journal, turn: Turn, deps: Deps) -> Gathered:
    """Record `approval.observed` for this turn's draft and hand the model the draft, the approved text and the diff."""
    draft_key = next(k for k in turn.keys if "@approval:" in k).split("@approval:", 1)[1]
    team = _team_approval(turn, deps, draft_key)
    elsewhere = _placed_elsewhere(journal, turn, deps, draft_key, team[1]) if team is not None else None
    before = elsewhere if elsewhere is not None else str(approvals.placed(journal, draft_key).record["text"])
    if team is not None:
        receipt, after = team
    else:
        seen = approvals.placed(journal, draft_key).target(turn.plan.agent_id).observe(draft_key)
        after = seen.approved_text if seen.approved_text is not None else before
        receipt = {"share_changed": approvals.share_changed(before, after)}
        receipt["output_fp"] = fingerprint_bytes(after.encode("utf-8"))
    parts = approvals.hunks(before, after)
    record = {"key": draft_key, "placed": before, "approved": after, "hunks": parts}
    append_body(journal.directory, turn.id, {"approval": record})
    approvals.record_approval(journal, draft_key, receipt, turn=turn.id)
    return Gathered({"approval": {"placed": before, "approved": after, "diff": "\n".join(parts)}}, {})


def _placed_elsewhere(journal: Journal, turn: Turn, deps: Deps, draft_key: str, approved: str) -> str | None:
    """The placed text of a team draft this machine did not place (a delegate or an Actions run did), read
    from git (hz.review.placed_text); None when this spine placed it."""
    if any(e.kind == "draft.placed" and e.data.get("key") == draft_key for e in journal.events()):
        return None
    from hz.review.placed_text import placed_text

    assert turn.plan.root is not None and turn.plan.contract is not None  # a team approval was found
    team_key = f"hz-{turn.plan.contract.frontmatter.id}@{draft_key.split('@', 1)[1]}"
    return placed_text(turn.plan.root, deps.environ, team_key, approved)


def _team_approval(turn: Turn, deps: Deps, draft_key: str) -> tuple[dict[str, Any], str] | None:
    """The team's receipt and approved text for a team contract's draft, None for a personal one."""
    contract_id = getattr(getattr(turn.plan.contract, "frontmatter", None), "id", None)
    if turn.plan.scope != "team" or turn.plan.root is None or not contract_id:
        return None
    from hz.review.approval_sweep import team_approval

    return team_approval(turn.plan.root, deps.environ, f"hz-{contract_id}@{draft_key.split('@', 1)[1]}")
