"""The team's pending drafts as the remote has them: what `hz drafts` shows beside this machine's own.

A reviewer on any machine sees every `hz/draft/<contract>/<output>` branch of this repository's team
remote (`[state]` in `hz.toml`), read from one fetch (hz.review.sync) or, when the remote cannot be
reached, from the last fetch with a note saying so. Each row names the contract (its id, and its name on
main), the output, the slot, the draft key, its age and, when a forge knows one, its pull request. Only
this repository's remote is read: another repository's drafts never show here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.errors import HzError


@dataclass
class TeamDrafts:
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why something is missing (remote unreached, forge failed)
    known: bool = False  # whether there is a team remote at all (then its drafts replace the index's copies)


def team_drafts(root: Path | None, environ: Mapping[str, str], now: datetime) -> TeamDrafts:
    """The pending draft branches on this repository's team remote (none without `[state]`)."""
    from hz.review.sync import fetch_view, fetched_main, read_view, team_remote

    found = TeamDrafts()
    remote = None if root is None else team_remote(root, environ)
    if remote is None:
        return found
    found.known = True
    try:
        view = fetch_view(remote)
    except HzError as exc:
        found.notes.append(f"the team remote could not be reached ({exc.message}); its drafts as last fetched")
        main = fetched_main(remote.root)
        view = read_view(remote, "refs/" + main.removeprefix(remote.sync_prefix) if main else None)
    pulls = _pulls(remote.root, environ, [d.branch for d in view.drafts.values()], found.notes)
    names = _names(remote, view.main, {d.contract for d in view.drafts.values()})
    for draft in sorted(view.drafts.values(), key=lambda d: (d.contract, d.output, d.slot or "", d.slug)):
        found.rows.append(
            {
                "scope": "team",
                "contract": draft.contract,
                "name": names.get(draft.contract),
                "output": draft.output,
                "slot": draft.slot,
                "key": draft.key,
                "branch": draft.branch,
                "placed_at": draft.committed.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "age_s": max(0, int((now - draft.committed).total_seconds())),
                "pull": pulls.get(draft.branch),
            }
        )
    found.notes += waiting_for_second(remote, view)
    return found


def waiting_for_second(remote: Any, view: Any) -> list[str]:
    """The self-approved drafts whose publishes wait for a second member (`[review] require_other_member`
    on main): approved by the member whose agent drafted them, their branch is gone, so a note says so."""
    from hz.errors import ConfigError
    from hz.gitstate.main_toml import review_settings, team_toml
    from hz.review.approval_state import StateBook

    if view.main is None or view.state is None:
        return []
    try:
        if not review_settings(*team_toml(remote, view.main)):
            return []
    except ConfigError:
        return []
    book = StateBook(remote.repo, view.state)
    return [
        f"{approval.key} was approved by {approval.data['approver']}, the member whose agent drafted it: its "
        f"publishes wait for a second member's `hz approve {approval.key}`"
        for approval in book.of_kind("approval.observed")
        if approval.data.get("self_approved") and not book.has("approval.seconded", approval.id, approval.key)
    ]


def _names(remote: Any, main: str | None, ids: set[str]) -> dict[str, str]:
    """Each contract's name as the fetched main has it: a branch names its contract by id, which tells a
    reviewer nothing. A contract main has no more is left out."""
    from hz.review.approval_publish import contract_on_main
    from hz.review.approval_watch import Main

    if main is None:
        return {}
    tip = Main(remote, main)
    loaded = {ident: contract_on_main(tip, f"hz-{ident}") for ident in ids}
    return {ident: str(contract.frontmatter.name) for ident, contract in loaded.items() if contract is not None}


def _pulls(root: Path, environ: Mapping[str, str], branches: list[str], notes: list[str]) -> dict[str, str]:
    """branch -> the URL of its open pull request, where a forge is configured and knows one."""
    if not branches:
        return {}
    from hz.review.forge import forge_for

    try:
        forge = forge_for(root, environ)
        if forge is None:
            return {}
        found = {branch: forge.pull_for_branch(branch) for branch in branches}
    except HzError as exc:
        notes.append(f"the forge did not answer ({exc.message}); pull requests not shown")
        return {}
    return {branch: pull.url for branch, pull in found.items() if pull is not None and pull.state == "open"}


def age(seconds: int) -> str:
    """`3 min`, `5 h`, `2 d`: how long a draft has waited, for people."""
    if seconds < 3600:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} d"
