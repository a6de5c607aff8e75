"""`hz drafts`: every waiting draft: this machine's (a projection over the index, no spine opened) and the
team's, from the repository's team remote (hz.review.team_drafts), so a reviewer anywhere sees them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from hz.errors import EXIT_OK
from hz.session.store import Store


def waiting_drafts(
    environ: Mapping[str, str], *, team: bool = False, root: Path | None = None, everywhere: bool = False
) -> list[dict[str, Any]]:
    """This machine's pending drafts; `team`: leave out its team drafts (the remote's rows show them).
    Only those of this repository's agents (`root`) and of agents of no repository, unless `everywhere`
    (or outside any repository); `everywhere` names each one's repository."""
    from hz.heinzel.repository import Here, elsewhere, named_repository

    with Store.from_environ(environ) as store:
        names = {row["id"]: f"{row['namespace']}:{row['name']}" for row in store.index.agents()}
        adopted = store.index.adopted()
        hidden = elsewhere(adopted, Here(root, environ)) if root is not None and not everywhere else set()
        repos = {str(r["id"]): named_repository(r) for r in adopted} if everywhere else {}
        return [
            {
                "agent": names.get(row["agent"], row["agent"]),
                "asset": row["asset"],
                "place": row["place"],
                "version": row["contract_version"],
                "placed_at": row["placed_at"],
                "key": row["key"],
                **({"repository": repos.get(row["agent"], "-")} if everywhere else {}),
            }
            for row in store.index.drafts(status="pending")
            if row["agent"] not in hidden
            if not (team and str(row["place"] or "").startswith("hz/draft/"))
        ]


def drafts_command(
    out: TextIO,
    *,
    json_output: bool,
    environ: Mapping[str, str],
    root: Path | None = None,
    now: datetime | None = None,
    everywhere: bool = False,
) -> int:
    from hz.review.team_drafts import age, team_drafts

    shared = team_drafts(root, environ, now or datetime.now(UTC))
    rows = waiting_drafts(environ, team=shared.known, root=root, everywhere=everywhere) + shared.rows
    if json_output:
        out.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    for note in shared.notes:
        out.write(f"note: {note}\n")
    if not rows:
        out.write("no drafts wait for you\n")
        return EXIT_OK
    for row in rows:
        if row.get("scope") == "team":
            pull = f"  {row['pull']}" if row["pull"] else ""
            named = row["name"] or row["contract"]  # its id when main has the contract no more
            out.write(f"team {named} · {row['output']}  slot {row['slot']}  {age(row['age_s'])} old"
                      f"  {row['branch']}{pull}\n  key {row['key']}\n")  # fmt: skip
        else:
            where = f"  in {row['repository']}" if "repository" in row else ""
            out.write(
                f"{row['agent']} v{row['version']}{where}  {row['place']}  placed {row['placed_at']}\n"
                f"  key {row['key']}\n"
            )
    return EXIT_OK
