"""`hz heinzel list`: every Heinzelmännchen from the index alone, filtered by state, artifact, contract."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

from hz.errors import HzError
from hz.session.index import Row
from hz.session.store import Store

TABLE_COLUMNS = ("id", "name", "namespace", "state", "contract_version", "due_at", "pending_draft",
                 "pending_amendment", "pending_question")  # fmt: skip


def parse_contract(value: str | None) -> tuple[str | None, int | None]:
    """`NAME[@VERSION]` with VERSION as `3` or `v3`."""
    if not value:
        return None, None
    name, _, version = value.partition("@")
    if not version:
        return name, None
    digits = version.removeprefix("v")
    if not digits.isdigit():
        raise HzError(f"--contract {value}: the version must be a number", hint="e.g. --contract weekly-report@2")
    return name, int(digits)


def as_json(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "namespace": row["namespace"],
        "handle": row["handle"],
        "state": row["state"],
        "contract": {
            "name": row["contract_name"],
            "version": row["contract_version"],
            "fingerprint": row["contract_fingerprint"],
        },
        "assets": json.loads(row["assets"]),
        "next_due": row["due_at"],
        "last_turn": row["last_turn"],
        "pending": {
            "draft": row["pending_draft"],
            "amendment": row["pending_amendment"],
            "question": row["pending_question"],
        },
        "cost_today": round(row["cost_today"], 6),
    }


def _pending(row: Row) -> str:
    kinds = [k for k in ("draft", "amendment", "question") if row[f"pending_{k}"]]
    return ",".join(kinds) or "-"


def render(rows: list[Row], out: TextIO) -> None:
    if not rows:
        out.write("no Heinzelmännchen yet (hz heinzel new NAME --from FILE, or hz workflow migrate)\n")
        return
    table = [("NAME", "STATE", "VERSION", "NEXT DUE", "PENDING", "TODAY", "ID")]
    for r in rows:
        version = f"v{r['contract_version']}" if r["contract_version"] else "-"
        due = (r["due_at"] or "-").replace("T", " ").removesuffix("Z")
        table.append((f"{r['namespace']}:{r['name']}", r["state"], version, due, _pending(r),
                      f"{r['cost_today']:.2f}", r["id"]))  # fmt: skip
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]) - 1)]
    out.write("".join("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=False)) + "  " + line[-1] + "\n"
                      for line in table))  # fmt: skip


def list_command(
    out: TextIO,
    *,
    state: str | None,
    artifact: str | None,
    contract: str | None,
    json_output: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
) -> int:
    name, version = parse_contract(contract)
    today = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%d")
    columns = None if json_output else TABLE_COLUMNS
    with Store.from_environ(environ) as store:
        rows = store.index.agents(
            state=state, artifact=artifact, contract=name, version=version, today=today, columns=columns
        )
        broken = store.index.broken()
    if json_output:
        out.write(json.dumps([as_json(r) for r in rows], indent=2, ensure_ascii=False) + "\n")
        return 0
    render(rows, out)
    for spine in broken:
        out.write(f"warning: the session of {spine['agent']} breaks at {spine['problem']} (hz heinzel show it)\n")
    return 0
