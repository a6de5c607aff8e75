"""What an adopted team agent takes from main besides new versions: its text, its contract's identity and name.

A team contract's version is a move of its contract fingerprint on main (`hz.heinzel.main_versions`),
and the fingerprint leaves out when, who and how much: `schedule:`, `owner:`, `maintainers:`, costs,
the Description's wording. A merge that changes only those is no new version, yet every member must run
what main says (the lease hook already checks roles against main). So the agent's current version takes
main's text under the same number (`refresh`), recorded as `contract.refreshed` with the commit it was
read at and the next due time under the new schedule; the text stays in the agent's folder, the spine
holds only the commit and the fingerprint.

A team contract is the same contract under a new file name or `name:` as long as its `id:` stays: the
`id:` names its lease and its receipts on hz/state for the whole team. So adoption finds this
repository's agent by `id:` first (`by_contract_id`), and an agent named after its contract follows a
rename (`heinzel.renamed`), keeping its session.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

from hz.errors import HzError
from hz.heinzel.rebind import place
from hz.heinzel.repository import Here
from hz.heinzel.versions import CONTRACT, read_version, store_version
from hz.session.store import Store

if TYPE_CHECKING:
    from hz.contract.load import Contract

_COLUMNS = ("id", "name", "namespace", "state", "origin", "source", "contract_name", "contract_version",
            "contract_fingerprint", "repo_root", "repo_remote", "repo_path")  # fmt: skip


@dataclass(frozen=True)
class Known:
    """This repository's agent of a team contract, and the contract's name in its current version."""

    row: dict[str, Any]
    named: str  # the contract's `name:` as the agent's current version has it


def by_contract_id(store: Store, here: Here, *, now: datetime) -> dict[str, Known]:
    """This repository's team agents by their contract's `id:` (read from each current version's compiled
    form, a small JSON file); the oldest agent of an id wins, as `ours` picks the oldest by name."""
    found: dict[str, Known] = {}
    rows = [r for r in store.index.agents(columns=(*_COLUMNS, "created_at")) if r["namespace"] == "team"]
    for row in sorted(rows, key=lambda r: (str(r.get("created_at") or ""), str(r["id"]))):
        compiled = _compiled(store, row) or {}
        frontmatter = compiled.get("frontmatter")
        contract_id = frontmatter.get("id") if isinstance(frontmatter, dict) else None
        if not isinstance(contract_id, str) or contract_id in found or not place(store, row, here, now=now):
            continue
        found[contract_id] = Known(dict(row), str(compiled.get("name") or row["contract_name"] or row["name"]))
    return found


def _compiled(store: Store, row: Any) -> dict[str, Any] | None:
    if not row["contract_version"]:
        return None
    path = store.agent_dir(str(row["id"])) / CONTRACT / f"v{int(row['contract_version'])}.json"
    try:
        loaded = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None  # a damaged copy: the agent is then found by name, as before ids counted
    return loaded if isinstance(loaded, dict) else None


def refresh(
    store: Store, row: Any, text: str, contract: Contract, *, commit: str, now: datetime, default_tz: str
) -> bool:
    """Give the agent's current version main's text when it differs and the fingerprint does not; whether
    it did. A retired or unapproved agent is left alone, as for new versions."""
    from hz.heinzel.lifecycle import next_due, still_due_since

    if row["state"] in ("retired", "proposed") or row["contract_fingerprint"] != contract.contract_fingerprint:
        return False
    directory, version = store.agent_dir(str(row["id"])), int(row["contract_version"])
    try:
        if read_version(directory, version) == text:
            return False
    except HzError:
        pass  # a damaged copy is replaced by main's text
    store_version(directory, version, text, contract)
    data = {"version": version, "commit": commit, "source_fingerprint": contract.source_fingerprint}
    data["next_due"] = next_due(contract, still_due_since(row, now), default_tz)
    with store.writer(str(row["id"]), now=now) as writer:
        writer.append("contract.refreshed", data, now=now)
    return True


def follow_name(store: Store, known: Known, contract: Contract, here: Here, *, now: datetime) -> str | None:
    """An agent named after its contract takes the contract's new name (when free); the new name, or
    None when nothing was renamed (a name the user chose stays theirs)."""
    from hz.heinzel.rebind import free_name

    row = known.row
    if contract.name == known.named or row["name"] != known.named:
        return None
    new = free_name(store, contract.name, "team", here)
    if new == row["name"] or store.index.agent(new, "team") is not None:
        return None
    with store.writer(str(row["id"]), now=now) as writer:
        writer.append("heinzel.renamed", {"name": new, "previous": row["name"]}, now=now)
    return new
