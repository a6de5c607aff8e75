"""`hz reject KEY` for a team draft: the receipt on `hz/state`, its pull request closed, its branch deleted.

Works from any machine with a clone (a reviewer's included): the draft is found on the team remote by
one fetch (hz.review.sync), by the team's key or by a member's own key of it (same version, slot and
asset). The receipt goes first, `draft.rejected {key, asset, by}` (by: this member's handle, `@unknown`
when hz knows none) with the lease fields of the draft's own
`draft.placed` (hz.review.approval_record, no lease taken), so a decision is never lost: a pull request
or branch left behind by a failure afterwards is closed or deleted by the next tick, which deletes the
branch of every decided draft (hz.review.draft_push).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.errors import HzError

HINT = "hz drafts lists the drafts that wait, with their keys"


@dataclass
class Rejected:
    key: str  # the team's key of the draft
    branch: str
    pull: str | None = None  # the URL of the pull request closed
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        closed = f", pull request {self.pull} closed" if self.pull else ""
        said = "".join(f"\n  note: {note}" for note in self.notes)
        return f"rejected {self.key}; branch {self.branch} deleted on the team remote{closed}{said}"


def reject_team(key: str, *, root: Path | None, environ: Mapping[str, str], now: datetime) -> Rejected | None:
    """Reject the team draft `key`; None when it is no team draft of this repository (a personal one)."""
    from hz.review.sync import fetch_view, team_remote

    remote = None if root is None else team_remote(root, environ)
    if remote is None or _own(key, environ, team=False):  # a draft in the work tree needs no remote
        return None
    view = fetch_view(remote)
    draft = _carrying(view, key)
    if draft is None:
        if _decided(remote, view, key):
            raise HzError(f"{key} was decided already", hint="hz heinzel show lists what happened to it")
        if _own(key, environ, team=True):
            return None  # this machine's draft on no team branch: the local path says what became of it
        raise HzError(f"no draft waits under {key}, here or on the team's remote", hint=HINT)
    placed = _placed(remote, view, str(draft.key))
    _record(remote, view, placed, now, environ)
    done = Rejected(str(draft.key), draft.branch)
    done.pull = _close_pull(remote, environ, draft.branch, done.notes)
    _delete(remote, draft, done.notes)
    return done


def _carrying(view: Any, key: str) -> Any:
    """The draft branch whose draft is `key`: by the team's key, else by the member's key's rest."""
    rest = key.partition("@")[2]
    exact = [d for d in view.drafts.values() if d.key == key]
    if exact:
        return exact[0]
    alike = [d for d in view.drafts.values() if d.key and d.key.partition("@")[2] == rest and rest]
    return alike[0] if len(alike) == 1 else None


def _decided(remote: Any, view: Any, key: str) -> bool:
    from hz.review.approval_state import FATES, StateBook

    if view.state is None or not key.startswith("hz-"):
        return False
    book = StateBook(remote.repo, view.state)
    return any(book.has(kind, key.partition("@")[0], key) for kind in FATES)


def _own(key: str, environ: Mapping[str, str], *, team: bool) -> bool:
    """Did this machine place a draft under `key`, on a team branch (`team`) or in the work tree?"""
    from hz.session.store import Store

    with Store.from_environ(environ) as store:
        rows = [row for row in store.index.drafts(status=None) if str(row["key"]) == key]
    return any(str(row["place"] or "").startswith("hz/draft/") == team for row in rows)


def _placed(remote: Any, view: Any, key: str) -> Any:
    """The draft's `draft.placed` on hz/state: its asset, and the lease term a receipt about it carries."""
    from hz.gitstate.layout import event_path
    from hz.review.approval_state import StateBook

    lease = key.partition("@")[0]
    placed = StateBook(remote.repo, view.state).read(event_path(lease, "draft.placed", key)) if view.state else None
    if placed is None:
        raise HzError(
            f"{key} is on a branch, but its draft.placed is not on hz/state yet",
            hint="the member who drafted it pushes its receipts with their next tick; try again then",
        )
    return placed


def _record(remote: Any, view: Any, placed: Any, now: datetime, environ: Mapping[str, str]) -> None:
    from hz.config import load_user_config
    from hz.gitstate.events import DraftRejected, Event
    from hz.gitstate.types import format_utc
    from hz.review.approval_record import record_once
    from hz.review.approval_roster import UNKNOWN

    by = load_user_config(environ).handle or UNKNOWN  # who ran `hz reject`: their handle, asserted
    data = DraftRejected(key=placed.key, asset=str(placed.data["asset"]), by=by)
    receipt = Event.make("draft.rejected", id=placed.id, key=placed.key, ts=format_utc(now), lease=placed.lease,
                         token=placed.token, data=data)  # fmt: skip
    recorded = record_once(remote, view.state, [receipt], now)
    if recorded.error:
        raise HzError(f"{placed.key} could not be recorded rejected: {recorded.error}", hint="try again")
    if not recorded.landed:
        raise HzError(f"{placed.key} was decided already", hint="hz heinzel show lists what happened to it")


def _close_pull(remote: Any, environ: Mapping[str, str], branch: str, notes: list[str]) -> str | None:
    from hz.gitstate.main_toml import team_toml
    from hz.review.forge import forge_for

    try:
        forge = forge_for(remote.root, environ, team_toml(remote)[0] or {})  # main's [forge], the team's
        pull = forge.pull_for_branch(branch) if forge is not None else None
        if forge is None or pull is None or pull.state != "open":
            return None
        forge.close_pull(pull.number)
    except HzError as exc:
        notes.append(f"its pull request is still open ({exc.message}); deleting the branch closes it")
        return None
    return str(pull.url)


def _delete(remote: Any, draft: Any, notes: list[str]) -> None:
    """Delete the branch on the remote, guarded by the tip just fetched (a newer draft there stays)."""
    from hz.review.draft_push import forget_local

    try:
        pushed = remote.git.push(remote.remote, {draft.ref: ""}, {draft.ref: draft.commit})
    except HzError as exc:
        notes.append(f"the branch stays for now ({exc.message}); the next tick deletes it")
        return
    if pushed.ok:
        forget_local(remote, draft.ref, draft.commit)
    else:
        notes.append("the branch moved meanwhile (a newer draft): it stays, with that draft")
