"""Team contracts in a tick: one runner per slot through the contract's lease, receipts to `hz/state`.

Each member adopts a team contract as an agent of their own, so the team-wide identity is the
contract's `id:` (`hz-<id>` is its lease, `refs/hz/lease/hz-<id>`, and the id of its receipts). Before a
team wake runs, the tick takes that lease for the wake's slot (owner first; a delegate or an Actions
run only once the grace period passed); a lease held by someone else, not yet ours to take, or a slot
already done means this machine does nothing for it. After the turn, its receipt-grade events (turn
started and ended, draft placed) are queued, and the tick flushes them in one atomic push together with
the renewal of every lease it holds, the draft branches its turns placed (each replacing the output's
pending draft) and the deletion of branches whose draft was decided: at most one push per tick, none
when nothing happened. What the tick knows of the remote comes from its one fetch at the start
(`for_tick`, hz.review.sync): `main`'s owners and maintainers, the slot's receipts, the leases.

This applies only when the repository's `hz.toml` names a `[state]` table; without it a team contract
runs on its owner's machine alone (hz.tick.owner_only). An `hz.toml` that does not parse is an error of
the tick, and team slots wait: a typo in a committed file must not switch coordination off.

This module holds the tick's `Team` and its one fetch; the claim of a lease is hz.tick.team_claim, a
turn's receipts hz.tick.team_receipts, its draft branches hz.tick.team_drafts, and the queue and the one
push hz.tick.team_push.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hz.errors import ConfigError, HzError
from hz.turn.plan import Plan


def configured(root: Path | None) -> bool:
    """Whether the repository's team contracts run under leases: its `hz.toml` has a `[state]` table.

    An `hz.toml` that cannot be read counts as configured: team slots then wait rather than run
    unleased, and `Team.open` reports the file's error (a tick with it exits 1).
    """
    from hz.gitstate.settings import read_hz_toml

    if root is None:
        return False
    try:
        document = read_hz_toml(root)
    except ConfigError:
        return True
    return document is not None and "state" in document


@dataclass
class Team:
    remote: Any  # hz.gitstate.remote.TeamRemote
    settings: Any  # hz.gitstate.settings.StateSettings
    identity: Any  # hz.gitstate.identity.Identity
    writer: Any  # hz.gitstate.writer.StateWriter
    held: dict[str, int] = field(default_factory=dict)  # lease id -> token, won this tick
    slots: dict[str, str] = field(default_factory=dict)  # lease id -> the slot (lease stamp) of that term
    queued: int = 0
    drafts: dict[str, Any] = field(default_factory=dict)  # draft ref -> hz.gitstate.flush_result.Draft, its lease term
    main: Any = False  # the contracts on the remote's main (MainContracts | None), read at the first claim
    view: Any = None  # hz.review.sync.TeamView: what the tick's one fetch brought
    plans: dict[str, Plan] = field(default_factory=dict)  # lease id -> the plan of its turn this tick
    environ: Mapping[str, str] = field(default_factory=dict)
    forge: Any = False  # hz.review.forge.Forge | None | why it failed, set up at first need (`_forge`)
    proposed: dict[str, Any] = field(default_factory=dict)  # draft ref -> hz.review.auto_publish.Proposal
    batched: set[str] = field(default_factory=set)  # lease ids the tick's one acquisition push took (team_batch)
    lost: dict[str, Any] = field(default_factory=dict)  # lease id -> (slot stamp, team_claim.Claim) lost in it
    used: set[str] = field(default_factory=set)  # lease ids a turn of this tick ran under
    opened: float = field(default_factory=time.monotonic)  # when the tick began: its `now` moves on from here

    def pull_book(self) -> Any:
        """The pull requests asked for and not yet answered (hz.review.pulls.PullBook)."""
        from hz.review.pulls import PullBook

        return PullBook(self.remote.local_dir / "pulls")

    @classmethod
    def open(
        cls, root: Path, environ: Mapping[str, str], handle: str | None, fetched: tuple[Any, Any] | None = None
    ) -> Team:
        """The team of this tick, with its one fetch of the remote done: `fetched` (the TeamRemote and the
        hz.review.sync.TeamView of the tick's start, `for_tick`), else here."""
        from hz.gitstate.identity import whoami
        from hz.gitstate.main_toml import team_state_settings
        from hz.gitstate.settings import load_state_settings
        from hz.gitstate.writer import StateWriter

        settings = load_state_settings(root)
        remote, view = fetched or fetch(root, settings.remote, environ)
        if view is not None and view.main is not None:  # the lease times the team merged, not the work tree's
            settings = team_state_settings(remote, view.main)
        team = cls(remote, settings, whoami(environ, handle), StateWriter(remote, settings))
        team.view, team.environ = view, environ
        return team


def fetch(root: Path, name: str, environ: Mapping[str, str]) -> tuple[Any, Any]:
    """The tick's one fetch of the team remote `name`: (its TeamRemote, the TeamView it brought)."""
    from hz.gitstate.remote import TeamRemote
    from hz.review.sync import fetch_view

    remote = TeamRemote(root, name, environ)
    return remote, fetch_view(remote)


def for_tick(root: Path | None, environ: Mapping[str, str]) -> tuple[tuple[Any, Any] | None, list[str]]:
    """The tick's one fetch, before anything else reads the remote (`Team.open` takes it), or the error
    why not; (None, []) where the repository keeps no team state. Light: git alone, nothing heavy
    imported, so an idle tick pays the fetch and no more."""
    from hz.gitstate.settings import load_state_settings

    if root is None or not configured(root):
        return None, []
    try:
        return fetch(root, load_state_settings(root).remote, environ), []
    except HzError as exc:
        return None, [exc.message]


def open_for(root: Path | None, environ: Mapping[str, str], handle: str | None) -> Team | None:
    """The team of a command a person runs on a team contract (a turn, an amendment), its one fetch done;
    None where the repository keeps no team state. A remote that cannot be reached is an error: nothing
    of a team contract runs or is placed unleased, or unseen, where the team is the rule."""
    if root is None or not configured(root):
        return None
    fetched, errors = for_tick(root, environ)
    if errors or fetched is None:
        raise HzError(errors[0] if errors else "the team remote was not reached", hint="try again once it is")
    return Team.open(root, environ, handle, fetched)


def lease_id(plan: Plan) -> str | None:
    contract_id = getattr(getattr(plan.contract, "frontmatter", None), "id", None)
    return f"hz-{contract_id}" if contract_id else None
