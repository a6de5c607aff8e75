"""An agent's contract at one version, read from its session folder and turned into a `Plan`.

Versions live at `<agent dir>/contract/v<n>.prose.md` (`hz.heinzel`); a turn loads the version its
`turn.started` names, so it keeps running under what it started with.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hz.errors import HzError
from hz.turn.plan import Plan, plan_from_contract


class ContractMissing(HzError):
    """An agent's contract version is not on disk, so none of its turns can run."""


def contract_path(agent_dir: Path, version: int) -> Path:
    return agent_dir / "contract" / f"v{version}.prose.md"


def load_plan(
    agent_dir: Path, row: Mapping[str, Any], version: int, *, root: Path | None, default_tz: str = "UTC"
) -> Plan:
    from hz.contract.load import load_text
    from hz.textfile import UnreadableFile, read_text_file

    path = contract_path(agent_dir, version)
    try:  # bounded and type-checked: a FIFO or /dev/zero in its place would hang the tick
        text = read_text_file(path, hint="hz heinzel show it")
    except UnreadableFile as exc:
        raise ContractMissing(f"{row['name']} has no readable contract v{version}: {exc.message}") from None
    result = load_text(text, path=str(path), namespace=str(row.get("namespace") or "me"))
    if result.contract is None:
        first = result.diagnostics[0].message if result.diagnostics else "it does not load"
        raise ContractMissing(f"{row['name']} v{version} does not load: {first}", hint="hz heinzel show it")
    return plan_from_contract(
        result.contract,
        agent_id=str(row["id"]),
        name=str(row["name"]),
        version=version,
        root=root,
        default_tz=default_tz,
    )
