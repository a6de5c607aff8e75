"""`hz drafts`: the text or JSON of `hz.ops.drafts` (this machine's waiting drafts and the team's)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from hz.errors import EXIT_OK


def drafts_command(
    out: TextIO,
    *,
    json_output: bool,
    environ: Mapping[str, str],
    root: Path | None = None,
    now: datetime | None = None,
    everywhere: bool = False,
) -> int:
    from hz.ops import Context
    from hz.ops.drafts import list_drafts
    from hz.ops.models_drafts import DraftsRequest
    from hz.review.team_drafts import age

    result = list_drafts(Context(environ=environ, root=root, now=now), DraftsRequest(everywhere=everywhere))
    rows: list[Any] = result["drafts"]
    if json_output:
        out.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    for note in result["notes"]:
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
