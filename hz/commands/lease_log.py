"""`hz lease log ID`: one lease's chain as the remote has it, newest first: who held it, when, for which slot.

Every acquisition, renewal and release is a commit on `refs/hz/lease/<id>`, so the chain is the lease's
whole history: a slot taken twice shows as two tokens for one slot. Each commit is read through the
lease lint (hz.gitstate.lease_lint.checked) on its own: one hz could not have written is listed as
damaged, the walk goes on to its first parent, and the command exits 1 after the listing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from hz.errors import EXIT_OK, HzError
from hz.gitstate.layout import lease_ref

if TYPE_CHECKING:
    import pygit2

    from hz.commands.lease_cmds import LeaseContext
    from hz.gitstate.lease_record import LeaseRecord

DEFAULT_LIMIT = 100


@dataclass(frozen=True)
class Link:
    """One commit of a chain: its record, or why it is damaged."""

    commit: str
    read: LeaseRecord | str

    def to_json(self) -> dict[str, object]:
        if isinstance(self.read, str):
            return {"commit": self.commit, "damaged": self.read}
        return {"commit": self.commit, **self.read.model_dump(mode="json"), "damaged": None}

    def line(self) -> str:
        short = self.commit[:12]
        if isinstance(self.read, str):
            return f"{short}  damaged: {self.read}"
        r = self.read
        return (
            f"{short}  token {r.token:<5} {r.holder:<22} {r.role:<8} slot {r.slot}  "
            f"acquired {r.acquired}  expires {r.expires}  {r.state}"
        )


def log_command(ctx: LeaseContext, lease_id: str, limit: int, as_json: bool) -> int:
    from hz.commands.lease_cmds import check_id, team_of
    from hz.gitstate.lease_lint import HINT_DAMAGED, DamagedLease

    team, _ = team_of(ctx)
    ref = lease_ref(check_id(lease_id))
    tips = team.git.ls_remote(team.remote, ref)
    if ref not in tips:
        raise HzError(f"no lease {lease_id} on {team.label}", hint="hz lease list shows the leases there")
    team.bring(dict(tips))
    links, more = chain(team.repo, ref, tips[ref], limit)
    if as_json:
        click.echo(json.dumps([link.to_json() for link in links], indent=2))
    else:
        click.echo("\n".join(link.line() for link in links))
        if more:
            click.echo(f"(older commits not shown: --limit {limit})")
    damaged = [link.commit[:12] for link in links if isinstance(link.read, str)]
    if damaged:  # after the listing: the healthy commits around it are worth seeing too
        plural = "s" if len(damaged) > 1 else ""
        raise DamagedLease(
            f"{len(damaged)} damaged commit{plural} in lease ref {ref} on {team.label}: {', '.join(damaged)}",
            hint=HINT_DAMAGED.format(ref=ref),
        )
    return EXIT_OK


def chain(repo: pygit2.Repository, ref: str, tip: str, limit: int) -> tuple[list[Link], bool]:
    """The chain from `tip` back along first parents, at most `limit` commits; and whether it goes on."""
    from hz.gitstate.lease_lint import checked

    links: list[Link] = []
    oid: str | None = tip
    while oid is not None and len(links) < limit:
        links.append(Link(oid, checked(repo, ref, oid)))
        oid = _first_parent(repo, oid)
    return links, oid is not None


def _first_parent(repo: pygit2.Repository, oid: str) -> str | None:
    """A commit's first parent; None at a root or where the chain holds no commit (a tag, a blob)."""
    found: Any = repo.get(oid)
    if found is None or found.type_str != "commit" or not found.parent_ids:
        return None
    return str(found.parent_ids[0])
