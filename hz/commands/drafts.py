"""`hz drafts`: every waiting draft, a projection over the index (no spine is opened)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from hz.errors import EXIT_OK
from hz.session.store import Store


def waiting_drafts(
    environ: Mapping[str, str], *, root: Path | None = None, everywhere: bool = False
) -> list[dict[str, Any]]:
    """The pending drafts of this repository's agents (`root`) and of those of no repository; with
    `everywhere` (or outside any repository) every one's, named with its repository when asked."""
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
        ]


def drafts_command(
    out: TextIO, *, json_output: bool, environ: Mapping[str, str], root: Path | None = None, everywhere: bool = False
) -> int:
    rows = waiting_drafts(environ, root=root, everywhere=everywhere)
    if json_output:
        out.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    if not rows:
        out.write("no drafts wait for you\n")
        return EXIT_OK
    for row in rows:
        where = f"  in {row['repository']}" if "repository" in row else ""
        out.write(
            f"{row['agent']} v{row['version']}{where}  {row['place']}  placed {row['placed_at']}\n  key {row['key']}\n"
        )
    return EXIT_OK
