"""`hz approve KEY` for a team draft its own author's member approved, when `[review]` asks for another.

With `[review] require_other_member = true` in main's `hz.toml`, a merge by the member whose agent drafted
the draft (`approval.observed` with `self_approved: true`) is recorded as it happened, and the draft's
publishes wait for a second member: any other member of the roster on `main` runs `hz approve KEY`, which
records `approval.seconded {key, asset, approver}` on `hz/state` (lease-less, with the draft's own lease
fields, like the approval it follows). The next tick then runs the publishes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from hz.errors import HzError

HINT = "hz state log lists the approvals; a second member seconds a self-approved draft by its key"


def second_team(key: str, *, root: Path | None, environ: Mapping[str, str], now: datetime) -> str | None:
    """Second the self-approved team draft `key`: the line to print; None when hz/state has no approval
    of that key (then it is no team draft to second, and `hz approve` says what else it could be)."""
    from hz.config import load_user_config
    from hz.gitstate.events import ApprovalSeconded, Event
    from hz.gitstate.layout import event_path
    from hz.gitstate.lint_fence import LeaseBook
    from hz.gitstate.main_toml import review_settings, team_toml
    from hz.gitstate.types import format_utc
    from hz.review.approval_record import record_once
    from hz.review.approval_roster import roster_of
    from hz.review.approval_state import StateBook
    from hz.review.approval_watch import Main, authors
    from hz.review.sync import fetch_view, team_remote

    remote = None if root is None or not key.startswith("hz-") else team_remote(root, environ)
    if remote is None:
        return None
    view = fetch_view(remote)
    ident = key.partition("@")[0]
    book = StateBook(remote.repo, view.state)
    approval = book.read(event_path(ident, "approval.observed", key)) if view.state else None
    placed = book.read(event_path(ident, "draft.placed", key)) if view.state else None
    if approval is None or placed is None or view.main is None:
        return None
    document, label = team_toml(remote, view.main)
    approver = str(approval.data["approver"])
    if not approval.data.get("self_approved") or not review_settings(document, label):
        raise HzError(f"{key} was approved by {approver}; it needs no second member", hint=HINT)
    if book.has("approval.seconded", ident, key):
        raise HzError(f"{key} was seconded already", hint=HINT)
    handle = load_user_config(environ).handle
    members = roster_of(document, label).members
    if handle is None or handle not in members:
        raise HzError(
            f"{handle or 'this machine (no handle)'} is no member of the roster on main",
            hint='a member listed in [team.members] of main\'s hz.toml seconds; set [user] handle = "@you"',
        )
    if handle == approver or handle in authors(Main(remote, view.main), LeaseBook.local(remote.repo), placed):
        raise HzError(f"{handle} drafted or approved {key}: another member seconds it", hint=HINT)
    data = ApprovalSeconded(key=key, asset=str(approval.data["asset"]), approver=handle)
    event = Event.make("approval.seconded", id=ident, key=key, ts=format_utc(now), lease=placed.lease,
                       token=placed.token, data=data)  # fmt: skip
    recorded = record_once(remote, view.state, [event], now)
    if recorded.error:
        raise HzError(f"{key} could not be recorded seconded: {recorded.error}", hint="try again")
    return f"seconded {key}: approved by {approver} (self-approved) and by {handle}; the next tick publishes it"
