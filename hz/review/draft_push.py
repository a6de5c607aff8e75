"""What a tick's one push does with the team's draft branches, besides placing new drafts.

- A branch whose draft was decided (`approval.observed` or `draft.rejected` on `hz/state`) is deleted,
  guarded by the tip the tick's fetch saw: a branch a newer draft moved since stays. So is an agent's
  amendment branch once its review is over (`hz.review.amendment_branch.settled`).
- A new draft whose branch moved since the fetch (a merged one deleted, another member's draft of an
  earlier slot) is pushed once more over the tip there now, unless that tip drafts a later slot.
- Afterwards each branch the push moved asks the forge for its pull request (hz.review.pulls).

Deleting needs no lease: it is bookkeeping whoever ticks first does, like recording the decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hz.gitstate.layout import STATE_REF, event_path
from hz.gitstate.transport import ZERO
from hz.slots import parse_slot

if TYPE_CHECKING:
    from hz.gitstate.flush_result import Draft

DECIDED = ("approval.observed", "draft.rejected", "draft.superseded")


def decided(remote: Any, view: Any) -> dict[str, Draft]:
    """Deletions (ref -> Draft with no commit and no lease) of the branches whose draft was decided,
    as `hz/state` stands now here (the tick's fetch, and what this tick recorded since)."""
    if view is None:
        return {}
    from hz.gitstate.flush_result import Draft
    from hz.review.amendment_branch import settled

    done = decided_refs(remote, view)
    return {
        branch.ref: Draft("", "", 0, branch.commit)
        for branch in view.drafts.values()
        if branch.ref in done or settled(remote, view.main, branch)
    }


def decided_refs(remote: Any, view: Any) -> set[str]:
    """The refs of the remote's draft branches whose draft has a decision on `hz/state` as it stands here
    (the tick's fetch, and what this tick recorded since). Git alone: an idle tick can afford it."""
    if view is None or not view.drafts:
        return set()
    return decisions(remote, _state(remote, view), [(d.ref, d.contract, d.key) for d in view.drafts.values()])


def _state(remote: Any, view: Any) -> str | None:
    said = remote.git.run("rev-parse", "--verify", "-q", remote.tracking(STATE_REF) + "^{commit}", check=False)
    tip = said.stdout.strip() or view.state
    return str(tip) if tip else None


def decisions(remote: Any, state: str | None, branches: list[tuple[str, str, str | None]]) -> set[str]:
    """The refs of the branches (ref, contract, draft key) whose draft has `approval.observed` or
    `draft.rejected` on hz/state at `state`: one `git cat-file --batch-check`. Only a key of the branch's
    own contract counts: a trailer naming another contract's decided draft deletes nothing."""
    asked: list[tuple[str, str]] = []
    for ref, contract, key in branches:
        lease = f"hz-{contract}"
        if state and key and key.startswith(lease + "@"):
            asked += [(ref, f"{state}:{event_path(lease, kind, key)}") for kind in DECIDED]
    if not asked:
        return set()
    said = remote.git.run("cat-file", "--batch-check", stdin="".join(f"{spec}\n" for _, spec in asked), check=False)
    answers = said.stdout.splitlines()
    return {ref for (ref, _), answer in zip(asked, answers, strict=False) if answer and not answer.endswith(" missing")}


def slot_of(repo: Any, commit: str) -> str | None:
    """The `Hz-Slot` trailer of a draft commit (None: none, or not a commit here)."""
    try:
        found = repo[commit].message_trailers
    except (KeyError, ValueError, AttributeError):
        return None
    slot = found.get("Hz-Slot")
    return str(slot).strip() if slot else None


def retry_stale(remote: Any, drafts: Mapping[str, Draft], refused: Mapping[str, str]) -> dict[str, Draft]:
    """New drafts refused because their branch moved since the fetch, to push again over the tip there
    now (one fetch each), unless that tip drafts a later slot than ours (then ours is superseded)."""
    again: dict[str, Draft] = {}
    for ref, why in refused.items():
        draft = drafts.get(ref)
        if draft is None or not draft.commit or draft.expected is None or "stale info" not in why:
            continue
        tip = remote.fetch_tip(ref)
        if tip is not None and _later(slot_of(remote.repo, tip), slot_of(remote.repo, draft.commit)):
            continue
        again[ref] = replace(draft, expected=tip or ZERO)
    return again


def later_there(repo: Any, view: Any, ref: str, commit: str) -> bool:
    """Does the remote's branch `ref` (as the tick's fetch saw it) hold a draft of a later slot than ours?"""
    seen = next((d for d in view.drafts.values() if d.ref == ref), None) if view is not None else None
    return seen is not None and _later(seen.slot, slot_of(repo, commit))


def _later(theirs: str | None, ours: str | None) -> bool:
    try:
        return theirs is not None and ours is not None and parse_slot(theirs) > parse_slot(ours)
    except ValueError:
        return False


def forget_local(remote: Any, ref: str, commit: str) -> None:
    """After the remote's branch was deleted: drop hz's copy, and this clone's branch when it still holds
    that very draft (a branch the member moved elsewhere is theirs)."""
    for name in (remote.tracking(ref), ref):
        try:
            reference = remote.repo.references[name]
        except KeyError:
            continue
        if str(reference.target) == commit or name != ref:
            reference.delete()


def pending_work(remote: Any, view: Any) -> bool:
    """Branches to delete (there or here), or pull requests a failed forge left to ask again: work for
    an idle tick."""
    from hz.review.amendment_branch import any_settled
    from hz.review.pulls import PullBook

    asked = PullBook(remote.local_dir / "pulls").asks()
    done = bool(decided_refs(remote, view)) or any_settled(remote, view)
    return done or bool(asked) or bool(local_decided(remote, view))


def local_decided(remote: Any, view: Any) -> list[tuple[str, str]]:
    """This clone's own `hz/draft/…` branches (ref, commit) whose draft was decided and that the remote
    no longer has (listed with the view, `hz.review.sync.read_view`)."""
    if view is None:
        return []
    on_remote = {draft.ref for draft in view.drafts.values()}
    mine: dict[str, tuple[str, str, str | None]] = {}
    for ref, commit, key in view.local_drafts:
        if ref not in on_remote:
            mine[ref] = (commit, ref.removeprefix("refs/heads/hz/draft/").partition("/")[0], key)
    if not mine:
        return []
    done = decisions(remote, _state(remote, view), [(ref, contract, key) for ref, (_, contract, key) in mine.items()])
    return [(ref, mine[ref][0]) for ref in sorted(done)]


def forget_decided_local(remote: Any, view: Any) -> None:
    """Delete those branches here too, so a member's clone does not keep them (each guarded by its tip)."""
    for ref, commit in local_decided(remote, view):
        remote.git.run("update-ref", "-d", ref, commit, check=False)
