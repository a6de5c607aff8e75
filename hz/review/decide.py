"""`hz approve` / `hz reject` for one placed draft, by its key.

Approving a draft in place means what the user would do by hand: the tag line goes, the text stays;
the next tick observes that and runs the approval turn that learns from the user's edits. A team
draft lives on a branch: it is approved by merging that branch (a pull request), never by hz. Rejecting
records `approval.observed {decision: rejected}` under the agent's lock first, then takes the draft
back: the file gets what it held before (or goes, if the draft created it), the branch is deleted.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import datetime
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


def reject(key: str, *, environ: Mapping[str, str], now: datetime, out: TextIO | None = None) -> int:
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
        if isinstance(target, BranchTarget):
            target.delete()
        else:
            assert isinstance(target, FileTarget)
            previous = item.record.get("previous")
            drafts.withdraw(target.path, key, previous if isinstance(previous, str) else None, target.root)
    (out or sys.stdout).write(f"rejected {key}; {target.place} is back to what it was\n")
    return EXIT_OK
