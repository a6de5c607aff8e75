"""`hz lease log ID`: one lease's chain as the remote has it, newest first: who held it, when, for which slot.

Every acquisition, renewal and release is a commit on `refs/hz/lease/<id>`, so the chain is the lease's
whole history: a slot taken twice shows as two tokens for one slot. A term whose turn ran has no release
commit: its `turn.finished` on hz/state ended it (hz.gitstate.lease_term), and the term's newest commit
shows `finished` and that event's time instead of `held`. Each commit is read through the
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
    from hz.gitstate.lease_term import Reader

DEFAULT_LIMIT = 100


@dataclass(frozen=True)
class Link:
    """One commit of a chain: its record, or why it is damaged."""

    commit: str
    read: LeaseRecord | str
    finished: str | None = None  # the newest commit of a term its turn's turn.finished ended: that event's time

    def to_json(self) -> dict[str, object]:
        if isinstance(self.read, str):
            return {"commit": self.commit, "damaged": self.read}
        return {"commit": self.commit, **self.read.model_dump(mode="json"), "damaged": None, "finished": self.finished}

    def line(self) -> str:
        short = self.commit[:12]
        if isinstance(self.read, str):
            return f"{short}  damaged: {self.read}"
        r = self.read
        state = f"finished {self.finished}" if self.finished is not None else r.state
        return (
            f"{short}  token {r.token:<5} {r.holder:<22} {r.role:<8} slot {r.slot}  "
            f"acquired {r.acquired}  expires {r.expires}  {state}"
        )


def log_command(ctx: LeaseContext, lease_id: str, limit: int, as_json: bool) -> int:
    from hz.commands.lease_cmds import check_id, snapshot, team_of
    from hz.gitstate.lease_lint import HINT_DAMAGED, DamagedLease

    team, _ = team_of(ctx)
    ref = lease_ref(check_id(lease_id))
    tips, read = snapshot(team, ref)
    if ref not in tips:
        raise HzError(f"no lease {lease_id} on {team.label}", hint="hz lease list shows the leases there")
    links, more = chain(team.repo, ref, tips[ref], limit, read)
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


def chain(
    repo: pygit2.Repository, ref: str, tip: str, limit: int, read: Reader | None = None
) -> tuple[list[Link], bool]:
    """The chain from `tip` back along first parents, at most `limit` commits; and whether it goes on.
    `read`: hz/state as of the same moment, for the terms their turn's `turn.finished` ended."""
    from hz.gitstate.lease_lint import checked
    from hz.gitstate.lease_term import finish

    links: list[Link] = []
    seen: set[int] = set()  # tokens met already: walking back, a term's newest commit comes first
    oid: str | None = tip
    while oid is not None and len(links) < limit:
        found = checked(repo, ref, oid)
        ended = None
        if read is not None and not isinstance(found, str) and found.token not in seen and found.state == "held":
            event = finish(read, found)
            ended = event.ts if event is not None else None
        if not isinstance(found, str):
            seen.add(found.token)
        links.append(Link(oid, found, ended))
        oid = _first_parent(repo, oid)
    return links, oid is not None


def _first_parent(repo: pygit2.Repository, oid: str) -> str | None:
    """A commit's first parent; None at a root or where the chain holds no commit (a tag, a blob)."""
    found: Any = repo.get(oid)
    if found is None or found.type_str != "commit" or not found.parent_ids:
        return None
    return str(found.parent_ids[0])
