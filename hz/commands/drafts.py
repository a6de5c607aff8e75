"""`hz drafts`: every waiting draft, a projection over the index (no spine is opened)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TextIO

from hz.errors import EXIT_OK
from hz.session.store import Store


def waiting_drafts(environ: Mapping[str, str]) -> list[dict[str, Any]]:
    with Store.from_environ(environ) as store:
        names = {row["id"]: f"{row['namespace']}:{row['name']}" for row in store.index.agents()}
        return [
            {
                "agent": names.get(row["agent"], row["agent"]),
                "asset": row["asset"],
                "place": row["place"],
                "version": row["contract_version"],
                "placed_at": row["placed_at"],
                "key": row["key"],
            }
            for row in store.index.drafts(status="pending")
        ]


def drafts_command(out: TextIO, *, json_output: bool, environ: Mapping[str, str]) -> int:
    rows = waiting_drafts(environ)
    if json_output:
        out.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    if not rows:
        out.write("no drafts wait for you\n")
        return EXIT_OK
    for row in rows:
        out.write(f"{row['agent']} v{row['version']}  {row['place']}  placed {row['placed_at']}\n  key {row['key']}\n")
    return EXIT_OK
