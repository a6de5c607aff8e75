"""`hz state log`: the events on `hz/state`, oldest first, who ran them, void (stale-token) ones marked."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hz.errors import EXIT_OK, HzError
from hz.gitstate.layout import LEASE_PREFIX, STATE_BRANCH, STATE_REF

if TYPE_CHECKING:
    from hz.gitstate.events import Event
    from hz.gitstate.lint_fence import LeaseBook
    from hz.gitstate.remote import TeamRemote


def log_command(
    root: Path,
    remote: str | None,
    hz_id: str | None,
    as_json: bool,
    fetch: bool,
    environ: Mapping[str, str] = os.environ,
    since: timedelta | None = None,
) -> int:
    from hz.gitstate.lint_fence import LeaseBook
    from hz.gitstate.objects import resolve
    from hz.gitstate.reader import history
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import load_state_settings
    from hz.heinzel.identity import check_agent_id

    if hz_id is not None:  # before any fetch: a typo is told at once, not as an empty log
        check_agent_id(hz_id)
    team = TeamRemote(root, remote or load_state_settings(root).remote, environ)
    leases: LeaseBook | None = None  # None: the chains this clone has (hz.gitstate.lint_fence.LeaseBook.local)
    if fetch:
        tip, leases = snapshot(team, hz_id)
    else:
        tip = resolve(team.repo, team.tracking(STATE_REF))
    tip = tip or resolve(team.repo, STATE_REF)
    book = leases or LeaseBook.local(team.repo)
    unread: list[str] = []
    start = datetime.now(UTC) - since if since is not None else None
    landed = [] if tip is None else list(history(team.repo, tip, book, unread, start))
    shown = [e for e in landed if hz_id is None or e.event.id == hz_id]
    if as_json:
        click.echo(json.dumps([{**e.to_json(), **_who(book, e.event)} for e in shown], indent=2))
    elif tip is None:
        click.echo(f"{STATE_BRANCH}: no events yet")
    else:
        for item in shown:
            e = item.event
            void = "  VOID (stale token)" if item.void else ""
            click.echo(f"{e.ts}  {e.kind:<17}  {e.key}  token {e.token}{_by(book, e)}{void}")
    if unread:  # what a remote without the hook may hold: skipped, said once per run
        click.echo(f"hz: skipped {len(unread)} file(s) on {STATE_BRANCH} that are no event hz can read "
                   f"(first: {unread[0]}); `hz state lint` says why", err=True)  # fmt: skip
    return EXIT_OK


_AGE = re.compile(r"([1-9][0-9]{0,4})([mhdw])")
_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


def since_option(text: str) -> timedelta:
    """`--since`'s age: a whole number and a unit (m, h, d, w)."""
    match = _AGE.fullmatch(text.strip())
    if match is None:
        raise HzError(f"--since {text!r} is no age", hint="a number and a unit: 30m, 12h, 1d, 2w")
    return int(match[1]) * _UNITS[match[2]]


def _by(book: LeaseBook, event: Event) -> str:
    """Who ran it, for the text log. A receipt recorded without a lease (an approval, a rejection, a
    publish) carries its draft's token, so that token's holder is the draft's author, not who recorded
    it: the approval names its approver instead, the others nobody."""
    from hz.gitstate.events import LEASELESS

    if event.kind == "approval.observed":
        own = " (self-approved)" if event.data.get("self_approved") else ""
        return f"  approved by {event.data.get('approver')}{own}"
    if event.kind == "approval.seconded":
        return f"  seconded by {event.data.get('approver')}"
    if event.kind == "draft.rejected" and event.data.get("by"):
        return f"  rejected by {event.data.get('by')}"
    if event.kind == "draft.superseded":
        return f"  superseded by {event.data.get('by')}"
    if event.kind in LEASELESS:
        return ""
    who = _who(book, event)
    return f"  {who['holder']} ({who['role']})" if who["holder"] else ""


def _who(book: LeaseBook, event: Event) -> dict[str, str | None]:
    """Who ran it: the holder and role of the lease commit that gave the event's token (None: unknown here,
    a chain this clone does not have or a token it never gave)."""
    grants = book.grants(event.lease)
    found = grants.holder(event.token) if grants is not None else None
    return {"holder": found[0], "role": found[1]} if found else {"holder": None, "role": None}


def snapshot(team: TeamRemote, hz_id: str | None) -> tuple[str | None, LeaseBook]:
    """The remote's hz/state tip and its lease chains (of `hz_id`, else all), read at one moment: one
    ls-remote for the tips, then one fetch for whatever objects are not here yet.

    Whatever clone runs the log, a token is judged against the lease chain as the remote has it with
    this very hz/state (a fresh clone has no chain at all, a member's copy may lag), so a forged token
    above the chain is void and the real events after it are not. A chain read with hz/state is as new
    as the events on it (hz pushes a lease's commit before or with the events under its token), so it
    counts as current: a token it never gave is void. A damaged ref tells nothing: as if absent."""
    from hz.gitstate.lease_lint import checked
    from hz.gitstate.lint_fence import LeaseBook

    found = team.git.ls_remote(team.remote, STATE_REF, LEASE_PREFIX + (hz_id or "*"))
    tips = {ref: oid for ref, oid in found.items() if ref == STATE_REF or ref.startswith(LEASE_PREFIX)}
    team.bring(tips)
    if STATE_REF not in tips:  # gone from the remote: no stale copy stands in for it
        with contextlib.suppress(KeyError):
            team.repo.references.delete(team.tracking(STATE_REF))
    chains = {
        ref.removeprefix(LEASE_PREFIX): oid
        for ref, oid in tips.items()
        if ref.startswith(LEASE_PREFIX) and not isinstance(checked(team.repo, ref, oid), str)
    }

    def tip_of(lease_id: str) -> tuple[str, bool] | None:
        return (chains[lease_id], True) if lease_id in chains else None

    return tips.get(STATE_REF), LeaseBook(team.repo, tip_of, required=False)
