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
    item = approvals.placed(journal, draft_key)
    before = str(item.record["text"])
    team = _team_approval(turn, deps, draft_key)
    if team is not None:
        receipt, after = team
    else:
        seen = item.target(turn.plan.agent_id).observe(draft_key)
        after = seen.approved_text if seen.approved_text is not None else before
        receipt = {"share_changed": approvals.share_changed(before, after)}
        receipt["output_fp"] = fingerprint_bytes(after.encode("utf-8"))
    parts = approvals.hunks(before, after)
    record = {"key": draft_key, "placed": before, "approved": after, "hunks": parts}
    append_body(journal.directory, turn.id, {"approval": record})
    approvals.record_approval(journal, draft_key, receipt, turn=turn.id)
    return Gathered({"approval": {"placed": before, "approved": after, "diff": "\n".join(parts)}}, {})


def _team_approval(turn: Turn, deps: Deps, draft_key: str) -> tuple[dict[str, Any], str] | None:
    """The team's receipt and approved text for a team contract's draft, None for a personal one."""
    contract_id = getattr(getattr(turn.plan.contract, "frontmatter", None), "id", None)
    if turn.plan.scope != "team" or turn.plan.root is None or not contract_id:
        return None
    from hz.review.approval_sweep import team_approval

    return team_approval(turn.plan.root, deps.environ, f"hz-{contract_id}@{draft_key.split('@', 1)[1]}")
