"""`hz source diff CONTRACT`: which inputs moved since the contract's Heinzelmännchen last looked.

The fingerprints its last turn saw come from the session index (`watched`); the current ones from the
source cache, fetching only sources whose recheck is due, exactly as the next tick would.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from hz.errors import HzError


def run_diff(
    contract: str,
    *,
    as_json: bool = False,
    environ: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
    now: datetime | None = None,
) -> int:
    from hz.commands.source_common import text_argument
    from hz.repo import find_root
    from hz.session.store import Store
    from hz.sources.gather import gather_for_turn
    from hz.turn.agents import load_plan

    text_argument(contract, "the contract")
    root = find_root(cwd)
    moment = now or datetime.now(UTC)
    with Store.from_environ(environ) as store:
        row = _agent(store, contract)
        plan = load_plan(store.agent_dir(str(row["id"])), row, int(row["contract_version"]), root=root)
        seen = {str(r["input"]): r.get("fingerprint") for r in store.index.watched() if r["agent"] == row["id"]}
    _, current = gather_for_turn(plan.contract, slot=moment, root=root, environ=environ, now=moment)
    rows = [_compare(name, seen.get(name), current.get(name)) for name in sorted(set(seen) | set(current))]
    if as_json:
        click.echo(json.dumps({"contract": contract, "agent": row["id"], "inputs": rows}, indent=2))
        return 0
    for r in rows:
        click.echo(f"{r['input']}: {r['status']}")
    if not rows:
        click.echo(f"{contract} reads no inputs")
    return 0


def _agent(store: Any, contract: str) -> Mapping[str, Any]:
    namespace, _, name = contract.rpartition(":")
    row = store.index.agent(name, namespace or None)
    if row is None or not row.get("contract_version"):
        raise HzError(
            f"no approved Heinzelmännchen keeps {contract}",
            hint="hz heinzel list shows them; hz heinzel new creates one",
        )
    return dict(row)


def _compare(name: str, last: str | None, now: str | None) -> dict[str, Any]:
    if now is None:
        status = "no longer read"
    elif last is None:
        status = "not seen by any turn yet"
    else:
        status = "unchanged" if last == now else "moved"
    return {"input": name, "status": status, "last": last, "current": now}
