"""The draft branches of team turns: which ones the remote has not had from us yet (`unpublished_drafts`),
tied to the lease term of the turn that placed them (`tie`), and where a withheld one is marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hz.tick.team import Team

from hz.session.envelope import Envelope


def tie(drafts: Mapping[str, str], lease: str, token: int, team: Team | None = None) -> dict[str, Any]:
    """Draft refs (ref -> commit) tied to the lease term of the turn that placed them, for the writer:
    pushed only with a renewal of that lease under that token, withheld when it was taken over.

    A branch named for its contract's output replaces the draft pending there: the push expects the tip
    the tick's fetch saw (the `team`'s view), so it moves only what this tick looked at, and never over
    a draft of a later slot (one a late push of an older turn would otherwise undo)."""
    from hz.gitstate.flush_result import Draft
    from hz.review.draft_push import later_there

    view = team.view if team is not None else None
    return {
        ref: Draft(commit, lease, token, _seen_tip(view, ref))
        for ref, commit in drafts.items()
        if team is None or not later_there(team.remote.repo, view, ref, commit)
    }


def _seen_tip(view: Any, ref: str) -> str | None:
    """The tip of a `hz/draft/<contract>/<output>` branch the tick's fetch saw (ZERO: none); None for an
    older `hz/draft/<agent>/<slot>` branch, which only ever moves forward."""
    from hz.gitstate.transport import ZERO

    if view is None or ref in view.others:
        return None
    seen = next((d.commit for d in view.drafts.values() if d.ref == ref), None)
    if seen is not None:
        return str(seen)
    # an agent id (`hz-…`) names an older branch; a contract id (a ULID) never starts so
    return None if ref.removeprefix("refs/heads/hz/draft/").startswith("hz-") else ZERO


def unpublished_drafts(team: Team, events: Sequence[Envelope]) -> dict[str, str]:
    """The draft branches these `draft.placed` events name whose tip the remote has not had from us yet
    (ref -> local commit, one git process).

    What was pushed is remembered in hz's own tracking namespace (`refs/hz/sync/<remote>/heads/…`). Only
    the branches of the given events: a branch belongs to the lease term of the turn that placed it, so
    an older turn's branch never rides on a later turn's lease. One withheld because its lease was taken
    over (marked under `withheld_ref`) is not on the remote and never will be: the next holder drafts its own.
    """
    refs = sorted({"refs/heads/" + str(e.data["place"]) for e in events if _on_branch(e)})
    if not refs:
        return {}
    marks = [team.remote.tracking(ref) for ref in refs] + [withheld_ref(team, ref) for ref in refs]
    tips = {ref: tip for ref in (*refs, *marks) if (tip := _tip(team, ref)) is not None}
    return {
        ref: tips[ref]
        for ref in refs
        if ref in tips and tips[ref] not in (tips.get(team.remote.tracking(ref)), tips.get(withheld_ref(team, ref)))
    }


def _tip(team: Team, ref: str) -> str | None:
    """The object `ref` names in this clone, read in process (a git process each was a turn's cost)."""
    try:
        return str(team.remote.repo.references[ref].resolve().target)
    except (KeyError, ValueError):
        return None


def withheld_ref(team: Team, ref: str) -> str:
    """Where this machine marks a draft branch's commit as never placed: its lease was taken over."""
    return f"{team.remote.sync_prefix}withheld/{ref.removeprefix('refs/')}"


def _on_branch(event: Envelope) -> bool:
    """A draft, or an agent's amendment of its team contract (hz.turn.amend), on a `hz/draft/…` branch."""
    place = str(event.data.get("place") or "")
    kinds = ("draft.placed", "amendment.proposed")
    return event.kind in kinds and place.startswith("hz/draft/") and place.count("/") >= 3
