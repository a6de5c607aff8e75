"""`hz approve` / `hz reject` for one placed draft, by its key.

Approving a draft in place means what the user would do by hand: the tag line goes, the text stays;
the next tick observes that and runs the approval turn that learns from the user's edits. A team
draft lives on a branch: it is approved by merging that branch (a pull request), never by hz. Rejecting
records `approval.observed {decision: rejected}` under the agent's lock first, then takes the draft
back: the file gets what it held before (or goes, if the draft created it).

A team draft (`hz/draft/<contract>/<output>` on the team remote) is rejected from any machine, by the
team's key `hz drafts` shows or by the member's own key of it (hz.review.reject_team): `draft.rejected`
goes on `hz/state` first, then its pull request is closed and the remote branch deleted. A step that
fails after the receipt is finished by the next tick, which deletes every decided draft's branch.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TextIO

from hz.config import load_user_config
from hz.errors import EXIT_OK, HzError
from hz.review import approvals, drafts
from hz.review.branches import BranchTarget
from hz.review.targets import FileTarget
from hz.session.store import Store
from hz.turn.journal import Journal


def _agent_of(key: str) -> str:
    agent_id = key.split("@", 1)[0]
    if not agent_id.startswith("hz-"):
        raise HzError(f"{key!r} is not a draft key", hint="hz drafts lists the drafts that wait, with their keys")
    return agent_id


def approve(key: str, *, environ: Mapping[str, str], now: datetime, out: TextIO | None = None) -> int:
    with Store.from_environ(environ) as store, store.writer(_agent_of(key), now=now) as writer:
        journal = Journal(writer, lambda: now)
        item = approvals.placed(journal, key)
        target = item.target(_agent_of(key))
        if isinstance(target, BranchTarget):
            raise HzError(
                f"{key} is a team draft on branch {target.place}",
                hint="merge that branch into main (a pull request); the next tick sees it approved",
            )
        assert isinstance(target, FileTarget)
        drafts.strip_tag(target.path, key, target.root)  # by the path rule, never through a link
    (out or sys.stdout).write(f"approved {target.place} as it stands; the next tick learns from your edits\n")
    return EXIT_OK


def reject(
    key: str, *, environ: Mapping[str, str], now: datetime, out: TextIO | None = None, root: Path | None = None
) -> int:
    from hz.review.reject_team import reject_team

    _agent_of(key)  # a key of no draft's shape is refused before the team remote is asked
    said = reject_team(key, root=root, environ=environ, now=now)
    if said is not None:
        _forget_local(key, said.key, environ=environ, now=now)
        (out or sys.stdout).write(said.line() + "\n")
        return EXIT_OK
    handle = load_user_config(environ).handle
    with Store.from_environ(environ) as store, store.writer(_agent_of(key), now=now) as writer:
        journal = Journal(writer, lambda: now)
        item = approvals.placed(journal, key)
        if any(e.kind == "approval.observed" and e.data.get("key") == key for e in journal.events()):
            raise HzError(f"{key} was decided already", hint="hz heinzel show lists what happened to it")
        target = item.target(_agent_of(key))
        if target.observe(key).state != "pending":
            raise HzError(f"{key} is no longer waiting in {target.place}", hint="hz drafts lists the drafts that wait")
        approvals.record_rejection(journal, key, approver=handle)
        if isinstance(target, BranchTarget):  # a team draft with no team remote: this clone's branch alone
            target.delete()
        else:
            assert isinstance(target, FileTarget)
            previous = item.record.get("previous")
            drafts.withdraw(target.path, key, previous if isinstance(previous, str) else None, target.root)
    (out or sys.stdout).write(f"rejected {key}; {target.place} is back to what it was\n")
    return EXIT_OK


def _forget_local(key: str, team_key: str, *, environ: Mapping[str, str], now: datetime) -> None:
    """This machine's own record of a team draft rejected on the remote: decided, so `hz drafts` and the
    tick stop waiting for it. Nothing to do on a machine that never placed it (a reviewer's)."""
    with Store.from_environ(environ) as store:
        rows = [r for r in store.index.drafts(status="pending") if str(r["key"]) in (key, _local_of(r, team_key))]
        for row in rows:
            with store.writer(str(row["agent"]), now=now) as writer:
                approvals.record_rejection(Journal(writer, lambda: now), str(row["key"]), approver=None)


def _local_of(row: Mapping[str, object], team_key: str) -> str:
    """The member's key of a team draft whose team key is `team_key` (same version, slot and asset)."""
    return f"{row['agent']}@{team_key.split('@', 1)[1]}"
