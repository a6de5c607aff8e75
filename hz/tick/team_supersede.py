"""A pending team draft replaced on its key's branch is recorded `draft.superseded` by the turn that replaced it.

A newer draft of the same idempotency key moves that key's branch (hz.review.branches): the draft pending
there leaves review. Its `draft.superseded {key, asset, by}` goes in the same push as the `draft.placed`
of the newer draft, under that turn's lease and token, so no tick in between shows it pending with no
branch. Two cases stay with the bookkeeping (hz.review.approval_judge), which also records supersession:
a draft whose target path `main` changed since the draft's base (a member may have merged it, by squash
or by hand; a superseded draft that was merged is still approved), and one this tick's fetch did not see
on the branch. A draft with a fate already (recorded by anyone, this tick's bookkeeping included) is left
alone, as is a branch tip no `draft.placed` on `hz/state` names (something pushed under the name).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hz.session.envelope import Envelope

if TYPE_CHECKING:
    from hz.gitstate.events import Event
    from hz.tick.team import Team


def superseded(team: Team, events: Sequence[Envelope], made: Sequence[Event]) -> list[Event]:
    """`draft.superseded` of each pending draft that a draft placed in `events` (the turn's own, whose
    receipts are `made`) replaced on its branch, under the newer draft's lease term."""
    view = team.view
    if view is None or view.main is None:
        return []
    placed = {str(e.data["asset"]): e for e in made if e.kind == "draft.placed"}
    found: list[Event] = []
    for event in events:
        place = str(event.data.get("place") or "")
        newer = placed.get(str(event.data.get("asset"))) if event.kind == "draft.placed" else None
        branch = view.drafts.get(place) if newer is not None else None
        if newer is None or branch is None or branch.key in (None, newer.key) or f"hz-{branch.contract}" != newer.id:
            continue
        older = _pending(team, branch, str(branch.key))
        if older is not None and not _moved_on_main(team, branch.commit, str(older.data["asset"])):
            found.append(_receipt(older, newer))
    return found


def _pending(team: Team, branch: Any, key: str) -> Event | None:
    """The `draft.placed` of `key` on hz/state as it stands here, None when it has a fate or is not there."""
    from hz.gitstate.layout import event_path
    from hz.review.approval_state import StateBook
    from hz.review.draft_push import _state, decisions

    state = _state(team.remote, team.view)
    if state is None or decisions(team.remote, state, [(branch.ref, branch.contract, key)]):
        return None
    return StateBook(team.remote.repo, state).read(event_path(f"hz-{branch.contract}", "draft.placed", key))


def _moved_on_main(team: Team, commit: str, asset: str) -> bool:
    """Did main's first-parent line change the draft's path since the draft branched off it?"""
    assert team.view is not None and team.view.main is not None
    git = team.remote.git
    base = git.run("merge-base", commit, team.view.main, check=False).stdout.strip()
    if not base:
        return True  # no common history: let the bookkeeping judge it
    span = f"{base}..{team.view.main}"
    path = asset.partition(":")[2]
    changed = git.run("rev-list", "-1", "--first-parent", span, "--", path, check=False)
    return changed.returncode != 0 or bool(changed.stdout.strip())


def _receipt(older: Event, newer: Event) -> Event:
    from hz.gitstate.events import DraftSuperseded, Event

    data = DraftSuperseded(key=older.key, asset=str(older.data["asset"]), by=newer.key)
    return Event.make("draft.superseded", id=older.id, key=older.key, ts=newer.ts, lease=newer.lease,
                      token=newer.token, data=data)  # fmt: skip
