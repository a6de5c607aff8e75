"""A tick's bookkeeping of team drafts: judge the pending ones, record their fates, run due publishes.

Called by every tick with `[state]` right after its one fetch and before any agent works, whether or
not an agent of this home is due: an idle member's tick, the maintainer's, an Actions run's all count,
and no lease is taken (hz.review.approval_record). Then the publishes of approvals recorded now, and of
earlier ones still missing some, run once each (hz.review.approval_publish, hz.review.publish).
Returns the tick report's entries: what was recorded, what was published, what failed and why.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.gitstate import objects
from hz.gitstate.layout import STATE_REF, event_path
from hz.gitstate.remote import TeamRemote
from hz.review.approval_record import record_once
from hz.review.approval_stamp import stamp
from hz.review.approval_state import StateBook
from hz.review.approval_watch import Main, watch

AGENT = "approvals"  # the report's name for this bookkeeping


def settle(remote: TeamRemote, view: Any, *, environ: Mapping[str, str], now: datetime) -> list[dict[str, Any]]:
    """Record the fates of the team's pending drafts seen in `view`, then run the publishes due."""
    from hz.gitstate.main_toml import team_toml
    from hz.review.approval_roster import roster_of
    from hz.review.forge import forge_for

    if view is None or view.main is None or view.state is None:
        return []
    try:
        document, label = team_toml(remote, view.main)  # the roster and forge the team merged, not the work tree's
        roster = roster_of(document, label)
        forge = forge_for(remote.root, environ, document or {})
        seen = watch(remote, view, forge, roster, now)
    except HzError as exc:  # a broken roster or forge: decided by a later tick, never with a wrong approver
        return [_error(exc.message)]  # no stamp: the next tick looks again
    entries = [_error(error) for error in seen.errors]
    recorded = record_once(remote, view.state, [fate.receipt for fate in seen.fates], now)
    if recorded.error:
        entries.append(_error(recorded.error))
    written = {id(e) for e in recorded.landed}
    for fate in seen.fates:
        if id(fate.receipt) in written or fate.receipt in recorded.there:
            forget_copy(remote, fate.placed)
        if id(fate.receipt) in written:
            entries.append(_entry(fate))
    # only the approvals this tick recorded are its own to publish at once; others wait for their recorder
    texts = {f.placed.key: f.approved for f in seen.fates if f.approved is not None and id(f.receipt) in written}
    published, open_, unread = publish_due(remote, view.main, forge=forge, environ=environ, now=now, texts=texts)
    entries.extend(_voided(remote.local_dir, seen.unread | unread))
    stamp(
        remote.local_dir, view, waiting=seen.waiting > 0, retry=bool(entries) or open_ or seen.held > 0, environ=environ
    )
    return entries + published


def publish_due(
    remote: TeamRemote,
    main_tip: str,
    *,
    forge: Any,
    environ: Mapping[str, str],
    now: datetime,
    texts: Mapping[str, str],
) -> tuple[list[dict[str, Any]], bool, set[str]]:
    """Run the publishes of every recent approval on hz/state (as this tick left it) not all done yet; the
    report's entries, whether some approval's publishes are still open (the next tick looks again), and
    the approval files that hold no event hz can read."""
    from hz.gitstate.main_toml import team_state_settings
    from hz.review.approval_publish import due_publishes, run_due

    main = Main(remote, main_tip)
    entries: list[dict[str, Any]] = []
    ids = main.contracts.declared  # receipts of contracts main does not have are never listed
    book = StateBook(remote.repo, objects.resolve(remote.repo, remote.tracking(STATE_REF)), ids)
    due, open_ = due_publishes(main, book, now, texts, team_state_settings(remote, main_tip).grace)
    unread = set(book.unread)
    for approved in due:
        try:
            receipts, results = run_due(main, book, approved, forge=forge, environ=environ, now=now)
        except HzError as exc:
            entries.append(_error(f"{approved.receipt.key}: {exc.message}"))
            continue
        recorded = record_once(remote, book.tip, receipts, now)
        book = StateBook(remote.repo, objects.resolve(remote.repo, remote.tracking(STATE_REF)), ids)
        if recorded.error:
            entries.append(_error(recorded.error))
        for result in results:
            entry = {"agent": AGENT, "action": "published", "key": approved.receipt.key, "publish": result.action}
            entry.update(target=result.target, status=result.status)
            if result.error:
                entry.update(action="error", error=result.error)
            if result.status != "recorded":
                entries.append(entry)
    return entries, open_, unread


def _voided(folder: Path, unread: set[str]) -> list[dict[str, Any]]:
    """One report entry per event file found unreadable (what a remote without the hook may hold), the
    first time a tick of this clone meets it; hz reads nothing from such a file, ever."""
    from hz.review.approval_state import UNREAD, remember, remembered

    known = remembered(folder, UNREAD)
    new = sorted(unread - known)
    remember(folder, known, new, UNREAD)
    why = "no event hz can read (a remote without hz's hook took it): voided"
    return [{"agent": AGENT, "action": "voided", "path": path, "error": why} for path in new]


def forget_copy(remote: TeamRemote, placed: Any) -> None:
    from hz.review.approval_watch import placed_copy

    with contextlib.suppress(KeyError, ValueError):
        remote.repo.references.delete(placed_copy(remote, placed))


def _entry(fate: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"agent": AGENT, "action": fate.kind, "key": fate.placed.key}
    data = fate.receipt.data
    if fate.kind == "approved":
        entry.update(approver=data["approver"], share_changed=data["share_changed"])
        if data.get("self_approved"):
            entry["self_approved"] = True
    elif (fate.kind == "rejected" and data.get("by")) or fate.kind == "superseded":
        entry["by"] = data["by"]
    return entry


def _error(message: str) -> dict[str, Any]:
    return {"agent": AGENT, "action": "error", "error": message}


def team_approval(root: Path, environ: Mapping[str, str], key: str) -> tuple[dict[str, Any], str] | None:
    """A team draft's `approval.observed` (by its team key) on `hz/state` as this clone last fetched it,
    and the approved text on the fetched `main`; None when either is not here."""
    from hz.gitstate.settings import load_state_settings
    from hz.review.approval_publish import approved_text
    from hz.review.sync import MAIN_REFS

    remote = TeamRemote(root, load_state_settings(root).remote, environ)
    book = StateBook(remote.repo, objects.resolve(remote.repo, remote.tracking(STATE_REF)))
    receipt = book.read(event_path(key.split("@", 1)[0], "approval.observed", key))
    main = next((tip for ref in MAIN_REFS if (tip := objects.resolve(remote.repo, remote.tracking(ref)))), None)
    if receipt is None or main is None:
        return None
    text = approved_text(Main(remote, main), receipt)
    return None if text is None else (dict(receipt.data), text)
