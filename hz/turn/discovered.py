"""The records of discovered sources in an agent's folder: what each `discovered` cause of a turn names.

The tick's discovery pass (hz.tick.discover) writes one small record per source it proposes; the turn
reads them back for the model's context. Kept here, in the turn's package, so the import goes from the
tick to the turn and never back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from hz.fsio import read_own

DETAILS = "discovered"  # folder in an agent's session folder: what each proposed source is
DETAILS_LIMIT = 1024 * 1024  # one source's ref, hint and why, with room to spare
MARK = "@discovered:"


def sources_for(agent_dir: Path, keys: Iterable[str]) -> list[dict[str, str]]:
    """What each discovered key of a turn names (source, hint, why), in the order of the sources."""
    found: list[dict[str, str]] = []
    for key in keys:
        if MARK not in key:
            continue
        path = agent_dir / DETAILS / file_name(key.split(MARK, 1)[1])
        try:
            record = json.loads(read_own(path, DETAILS_LIMIT) or b"")
        except ValueError:
            continue  # its record is gone (or is not one hz wrote): the turn has nothing to show for it
        if isinstance(record, dict):
            found.append({k: str(record.get(k, "")) for k in ("source", "hint", "why")})
    return sorted(found, key=lambda d: d["source"])


def file_name(source_fingerprint: str) -> str:
    digest = source_fingerprint.removeprefix("sha256:")
    if len(digest) != 64 or not set(digest) <= set("0123456789abcdef"):
        return "not-a-fingerprint"  # a key is ours, but a file name built from it must stay in its folder
    return digest + ".json"
