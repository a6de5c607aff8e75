"""The team side of a tick: the team it opens (its one fetch taken), the drafts whose receipts wait carried
into its one push, that push said line by line (`push_team`, shared with the turns a person starts), and
what a lease taken over before the push leaves behind.

The team and its push are hz.tick.team and hz.tick.team_push; this is what the tick does with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hz.errors import HzError
from hz.session.store import Store
from hz.tick.report import TickReport
from hz.turn.journal import Journal

if TYPE_CHECKING:
    from hz.tick.candidates import Candidate


def forget_fenced(store: Store, team: Any, lease: str, report: TickReport, now: datetime) -> None:
    """A fenced turn placed nothing for the team: the tick says `fenced` once (not `started -> drafted`
    too), and this machine's record of its draft is decided here, so no pending draft that no other
    member can see is left behind (`hz drafts`, `hz heinzel show`)."""
    plan = team.plans.get(lease)
    if plan is None:
        return
    report.woken[:] = without_started(report.woken, plan.name)
    with store.writer(plan.agent_id, now=now) as writer:
        decide_withheld(Journal(writer, lambda: now), team, lease)


def without_started(entries: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The entries but the `started`/`resumed` line of `name`, whose turn was fenced: `fenced` says it."""
    return [e for e in entries if not (e.get("agent") == name and e["action"] in ("started", "resumed"))]


def decide_withheld(journal: Journal, team: Any, lease: str) -> None:
    """Decide (rejected locally, no approver) this spine's pending drafts that hz/state does not hold: the
    push that would have placed them was fenced."""
    from hz.gitstate.layout import STATE_REF
    from hz.gitstate.objects import resolve
    from hz.review import approvals
    from hz.review.approval_state import StateBook

    book = StateBook(team.remote.repo, resolve(team.remote.repo, team.remote.tracking(STATE_REF)))
    for event in approvals.undecided(journal.events()):
        key = str(event.data["key"])
        if not book.has("draft.placed", lease, f"{lease}@{key.split('@', 1)[1]}"):
            approvals.record_rejection(journal, key, approver=None)


def push_team(store: Store, team: Any, now: datetime) -> tuple[list[dict[str, Any]], bool]:
    """The tick's one push (hz.tick.team_push.flush), the waiting drafts carried along: what it reports, and
    whether it pushed. Shared with the turns a person starts (hz.tick.direct), which push the same way."""
    from hz.tick.team_push import flush

    carry_waiting_drafts(store, team)
    pushed = flush(team, now)
    said: list[dict[str, Any]] = [fenced_entry(lease, pushed.get("withheld", {})) for lease in pushed.get("fenced", ())]
    if "error" in pushed:
        said.append({"agent": "hz/state", "action": "error", "error": pushed["error"]})
    for ref, why in sorted(pushed.get("unpublished", {}).items()):
        error = f"the remote refused the draft branch {ref.removeprefix('refs/heads/')}: {why}"
        said.append({"agent": "hz/state", "action": "error", "error": error})
    for why in sorted(pushed.get("clashed", {}).values()):
        said.append({"agent": "hz/state", "action": "error", "error": f"not written: {why}"})
    for why in pushed.get("pulls_failed", ()):  # the branch is on the remote; the next tick asks again
        said.append({"agent": "forge", "action": "error", "error": why})
    said.extend(pushed.get("auto_published", ()))  # publishes a policy let run before the review
    return said, bool(pushed["pushed"])


def unreached_entry(candidate: Candidate) -> dict[str, Any]:
    from hz.tick.dispositions import unreached
    from hz.tick.team import lease_id

    name = str(candidate.row.get("contract_name") or candidate.plan.name)
    return unreached(name, lease_id(candidate.plan)).to_json()


def fenced_entry(lease: str, withheld: Mapping[str, str]) -> dict[str, Any]:
    """A lease taken over before our push: its receipts were dropped and its draft branches withheld."""
    branches = [ref.removeprefix("refs/heads/") for ref, held in withheld.items() if held == lease]
    placed = f"; its draft branch {', '.join(branches)} was not pushed" if branches else ""
    return {"agent": lease, "action": "fenced", "reason": f"the lease was taken over{placed}"}


def fenced_leases(entries: list[dict[str, Any]]) -> list[str]:
    """The leases the `fenced` entries of a push's report name."""
    return [str(e["agent"]) for e in entries if e.get("action") == "fenced"]


def carry_waiting_drafts(store: Store, team: Any) -> None:
    """Draft branches of the turns whose receipts still wait in the outbox ride in this tick's push.

    A push that failed left both behind; the receipts go out with the next tick (even an idle one), and
    their branches with them, as in the push that failed, rather than with the agent's next team turn
    (a week later for a weekly contract). Each branch is tied to the lease and token of its receipts, so
    the writer pushes it only with a renewal of that lease term, and withholds it with the receipts when
    the lease was taken over: a holder that lost its lease places nothing.
    """
    if not team.writer.outbox.waiting():
        return
    from hz.tick.team_drafts import tie, unpublished_drafts

    terms = {str(e.data["turn"]): (e.lease, e.token) for e in team.writer.outbox.events() if e.kind == "draft.placed"}
    if not terms:
        return
    marks = ",".join("?" * len(terms))
    query = f"SELECT DISTINCT agent FROM turns WHERE turn IN ({marks})"  # only placeholders are formatted in
    for (agent,) in store.index.db.execute(query, sorted(terms)).fetchall():
        for event in store.read(str(agent)).events:
            if event.kind == "draft.placed" and event.turn in terms:
                team.drafts.update(tie(unpublished_drafts(team, [event]), *terms[event.turn], team))


def coordinated(root: Path | None) -> bool:
    from hz.tick.team import configured

    return configured(root)


def open_team(
    root: Path | None, environ: Mapping[str, str], handle: str | None, report: TickReport, fetched: Any = None
) -> Any:
    from hz.tick.team import Team, configured

    if root is None or not configured(root) or fetched is False:
        return None
    try:
        return Team.open(root, environ, handle, fetched)
    except HzError as exc:
        report.woken.append({"agent": "hz/state", "action": "error", "error": exc.message})
        return None
