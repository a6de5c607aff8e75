"""The tick's one push for team contracts: `record` queues a team turn's receipts and draft branches and
notes the pull requests they ask for; `flush` pushes it all at once (receipts, lease renewals, draft
branches, deletions of decided ones), then asks the forge for the pull requests and runs the publishes an
`auto_approve` policy grants.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hz.tick.team import Team

from hz.errors import HzError
from hz.session.envelope import Envelope
from hz.tick.team_claim import Claim
from hz.tick.team_drafts import tie, unpublished_drafts, withheld_ref
from hz.tick.team_receipts import receipts
from hz.turn.plan import Plan


def record(team: Team, events: Sequence[Envelope], turn: str, claim_: Claim) -> None:
    from hz.review.auto_publish import proposals
    from hz.tick.team_supersede import superseded

    made = receipts(events, turn, claim_)
    placed = [e for e in events if e.turn == turn]
    team.queued += team.writer.queue(*made, *superseded(team, placed, made))  # in the placing push
    assert claim_.lease is not None, "a team turn runs under its lease"
    branches = unpublished_drafts(team, placed)
    team.drafts.update(tie(branches, claim_.lease, claim_.token, team))
    team.proposed.update(proposals(placed, made, claim_.lease, branches))
    _ask_pulls(team, team.plans.get(claim_.lease), branches)


def _ask_pulls(team: Team, plan: Plan | None, branches: Mapping[str, str]) -> None:
    """Note the pull request each new draft branch asks for (hz.review.pulls), made once its push lands:
    kept until the forge answers, so a draft pushed by a later tick (its receipts waited) still gets one."""
    from hz.review.pulls import ask_for

    forge = _forge(team)
    if forge is None or plan is None or team.view is None:  # a forge that failed to set up: asked later
        return
    base = (team.view.main_ref or "refs/heads/main").removeprefix("refs/heads/")
    for ref, commit in branches.items():
        key, slot = _trailers(team, commit)
        if key and slot and ref.startswith("refs/heads/hz/draft/"):
            team.pull_book().put(ask_for(plan, ref.removeprefix("refs/heads/"), commit, key, slot, base))


def _forge(team: Team) -> Any:
    """The team's forge for this tick (None: none configured; a str: why it could not be set up)."""
    from hz.review.forge import forge_for

    if team.forge is False:
        try:
            from hz.gitstate.main_toml import team_toml

            main = team.view.main if team.view is not None else None
            team.forge = forge_for(team.remote.root, team.environ, team_toml(team.remote, main)[0] or {})
        except HzError as exc:
            team.forge = exc.message
    return team.forge


def flush(team: Team, now: datetime) -> dict[str, Any]:
    """One push per tick at most: the queued receipts, the renewal of the leases won (a lease whose turn
    finished is only guarded: its `turn.finished` ends the term, hz.gitstate.lease_term), the new draft
    branches and the deletion of decided ones (hz.review.draft_push); then the pull requests of the moved
    branches."""
    from hz.review.draft_push import decided, forget_decided_local

    forget_decided_local(team.remote, team.view)
    drops = {ref: gone for ref, gone in decided(team.remote, team.view).items() if ref not in team.drafts}
    if not team.queued and not team.held and not team.drafts and not drops and not team.writer.outbox.waiting():
        return {"pushed": False, **_pulls(team, {})}  # asks a failed forge left go out now
    try:
        from hz.tick.team_batch import idle

        release = idle(team)  # taken before the turns by the acquisition push, and no turn ran under it
        at = now + timedelta(seconds=time.monotonic() - team.opened)  # the turns took time since `now`
        result = team.writer.flush(
            now, renew=tuple(team.held), publish={**drops, **team.drafts}, release=release, at=at
        )
        again = _stale(team, result.unpublished)
        renew = tuple({draft.lease for draft in again.values()})
        retried = team.writer.flush(now, renew=renew, publish=again) if again else None
    except HzError as exc:
        return {"pushed": False, "error": exc.message}
    from hz.gitstate.objects import set_ref
    from hz.gitstate.refused import report
    from hz.review.draft_push import forget_local

    published = {**result.published, **(retried.published if retried else {})}
    refused = {**result.unpublished, **(retried.unpublished if retried else {})}
    unpublished = {ref: why for ref, why in refused.items() if ref not in drops and ref not in published}
    for ref, commit in published.items():  # remembered, so the next flush does not push it again
        if commit:
            set_ref(team.remote.repo, team.remote.tracking(ref), commit)
        else:
            forget_local(team.remote, ref, drops[ref].expected or "")
    for ref in result.withheld:  # not on the remote, never to be: the lease's next holder drafts its own
        set_ref(team.remote.repo, withheld_ref(team, ref), team.drafts[ref].commit)
    said = {"error": report(result.refused, team.writer.set_aside.directory)} if result.refused else {}
    return {
        **said,  # events the hook refused: set aside, said once, never blocking the rest
        "pushed": bool(result.pushes),
        "landed": len(result.landed),
        "fenced": sorted(result.fenced),
        "withheld": dict(sorted(result.withheld.items())),  # draft ref -> its fenced lease: never pushed
        "published": sorted(ref for ref, commit in published.items() if commit),
        "deleted": sorted(ref for ref, commit in published.items() if not commit),
        "unpublished": unpublished,
        "clashed": dict(result.clashed),  # receipts another run wrote first: a double run, said in the tick
        **_pulls(team, published),
        **_auto_published(team, published, now),
    }


def _auto_published(team: Team, published: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """The publishes an `auto_approve` policy grants on the drafts whose branch just landed
    (hz.review.auto_publish); they run once the branch is there, so a person sees what was published."""
    if not team.proposed or team.view is None:
        return {}
    from hz.review.auto_publish import run_granted

    forge = _forge(team)
    entries = run_granted(team.remote, team.view.main, team.proposed, published,
                          forge=None if isinstance(forge, str) else forge, environ=team.environ, now=now)  # fmt: skip
    return {"auto_published": entries} if entries else {}


def _stale(team: Team, unpublished: Mapping[str, str]) -> dict[str, Any]:
    """New drafts whose branch moved since the fetch, to push once more (hz.review.draft_push)."""
    from hz.review.draft_push import retry_stale

    mine = {ref: draft for ref, draft in team.drafts.items() if draft.lease in team.held}
    return retry_stale(team.remote, mine, unpublished) if team.view is not None else {}


def _pulls(team: Team, published: Mapping[str, str]) -> dict[str, Any]:
    """Ask the forge for the pull request of every draft branch whose push landed (this tick's, or one a
    failed forge left waiting); nothing without a forge. Errors go in the tick's report, the asks stay."""
    from hz.review.pulls import open_pulls

    book = team.pull_book()
    if team.view is None or not book.asks():
        return {}
    forge = _forge(team)
    if isinstance(forge, str):
        return {"pulls_failed": [forge]}
    if forge is None:  # no forge (any more): the branches alone carry the review
        for ask in book.asks():
            book.done(ask)
        return {}
    tips = {d.branch: d.commit for d in team.view.drafts.values()}
    tips.update({ref.removeprefix("refs/heads/"): commit or None for ref, commit in published.items()})
    waiting = {draft.commit for ref, draft in team.drafts.items() if ref not in published}
    urls, errors = open_pulls(forge, book, tips, waiting)
    return {"pulls": urls, **({"pulls_failed": errors} if errors else {})}


def _trailers(team: Team, commit: str) -> tuple[str | None, str | None]:
    from hz.review.draft_push import slot_of

    try:
        key = team.remote.repo[commit].message_trailers.get("Hz-Draft")
    except (KeyError, ValueError):
        key = None
    return (str(key).strip() if key else None), slot_of(team.remote.repo, commit)
