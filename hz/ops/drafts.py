"""Every waiting draft: this machine's (a projection over the index, no spine opened) and the team's, from
the repository's team remote (hz.review.team_drafts), so a reviewer anywhere sees them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context
from hz.ops.models_drafts import DraftsRequest, DraftsResult, PersonalDraft, TeamDraft
from hz.session.store import Store


def list_drafts(ctx: Context, request: DraftsRequest) -> DraftsResult:
    from hz.review.team_drafts import team_drafts

    shared = team_drafts(ctx.root, ctx.environ, ctx.moment())
    mine = waiting_drafts(ctx.environ, team=shared.known, root=ctx.root, everywhere=request.everywhere)
    team: list[TeamDraft] = shared.rows  # type: ignore[assignment]  # hz.review.team_drafts builds them so
    return {"schema_version": SCHEMA_VERSION, "drafts": [*mine, *team], "notes": list(shared.notes)}


def waiting_drafts(
    environ: Mapping[str, str], *, team: bool = False, root: Path | None = None, everywhere: bool = False
) -> list[PersonalDraft]:
    """This machine's pending drafts; `team`: leave out its team drafts (the remote's rows show them).
    Only those of this repository's agents (`root`) and of agents of no repository, unless `everywhere`
    (or outside any repository); `everywhere` names each one's repository."""
    from hz.heinzel.repository import Here, elsewhere, named_repository

    with Store.from_environ(environ) as store:
        names = {row["id"]: f"{row['namespace']}:{row['name']}" for row in store.index.agents()}
        adopted = store.index.adopted()
        hidden = elsewhere(adopted, Here(root, environ)) if root is not None and not everywhere else set()
        repos = {str(r["id"]): named_repository(r) for r in adopted} if everywhere else {}
        found: list[PersonalDraft] = []
        for row in store.index.drafts(status="pending"):
            if row["agent"] in hidden or (team and str(row["place"] or "").startswith("hz/draft/")):
                continue
            draft: PersonalDraft = {
                "agent": names.get(row["agent"]) or str(row["agent"]),
                "asset": row["asset"],
                "place": row["place"],
                "version": row["contract_version"],
                "placed_at": row["placed_at"],
                "key": row["key"],
            }
            if everywhere:
                draft["repository"] = repos.get(row["agent"], "-")
            found.append(draft)
        return found
