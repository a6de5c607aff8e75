"""`hz heinzel list`: every Heinzelmännchen from the index alone, filtered by state, artifact, contract."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from hz.errors import HzError
from hz.session.frozen import frozen_reason
from hz.session.index import Row
from hz.session.queries import ListLine
from hz.session.store import Store

# A contract version is the count of its approved versions: nine digits is far beyond any real one,
# and keeps the number inside SQLite's integers and Python's int-from-text limit.
_VERSION = re.compile(r"v?([1-9][0-9]{0,8})")
_CONTRACT_HINT = "write NAME or NAME@VERSION, e.g. --contract weekly-report@2"


def parse_contract(value: str | None) -> tuple[str | None, int | None]:
    """`NAME[@VERSION]` with VERSION as `3` or `v3`; an empty name or version is refused, not ignored."""
    if value is None:
        return None, None
    name, at, version = value.partition("@")
    if not name:
        raise HzError(f"--contract {_shown(value)}: names no contract", hint=_CONTRACT_HINT)
    if not at:
        return name, None
    digits = _VERSION.fullmatch(version)  # ASCII digits only: str.isdigit() also takes '²'
    if digits is None:
        raise HzError(
            f"--contract {_shown(value)}: the version must be a whole number from 1 to 999999999",
            hint=_CONTRACT_HINT,
        )
    return name, int(digits.group(1))


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 60 else repr(value[:60]) + "…"


def shown_state(row: Row, frozen: Collection[str]) -> str:
    """An agent whose spine breaks is `frozen` whatever its rows say (`hz.session.frozen`)."""
    return "frozen" if row["id"] in frozen else str(row["state"])


def show_frozen(lines: list[ListLine], frozen: Collection[str]) -> list[ListLine]:
    if not frozen:
        return lines
    return [(*line[:2], "frozen", *line[3:]) if line[6] in frozen else line for line in lines]


def as_json(row: Row, frozen: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One agent; `frozen` maps the agents whose spine breaks to where and why (`hz.session.frozen`)."""
    frozen = frozen or {}
    return {
        "id": row["id"],
        "name": row["name"],
        "namespace": row["namespace"],
        "handle": row["handle"],
        "state": shown_state(row, frozen),
        "frozen": frozen_reason(frozen[row["id"]]) if row["id"] in frozen else None,
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
        "repository": _repository(row),
    }


def _repository(row: Row) -> dict[str, str] | None:
    """The repository an adopted agent belongs to, as recorded (None for one of no repository)."""
    if row.get("origin") != "adopted":
        return None
    found = {"root": row.get("repo_root"), "remote": row.get("repo_remote"), "path": row.get("repo_path")}
    return {key: str(value) for key, value in found.items() if value}


HEADER = ("NAME", "STATE", "VERSION", "NEXT DUE", "PENDING", "TODAY", "ID")
# `Index.agent_lines` gives the pending items as bits: 1 draft, 2 amendment, 4 question.
PENDING = ("-", "draft", "amendment", "draft,amendment", "question", "draft,question", "amendment,question",
           "draft,amendment,question")  # fmt: skip


def render(lines: list[ListLine], spent: dict[str, float], out: TextIO, repos: Mapping[str, str] | None = None) -> None:
    """The table, one `%` format per agent: 10,000 agents in a few milliseconds.

    Column widths come from the few distinct values of each column (states, versions, pending bits,
    costs) rather than from a transposed copy of the whole table, which cost more than the formatting.
    `repos` adds a REPOSITORY column (by id)."""
    if not lines:
        out.write("no Heinzelmännchen yet (hz heinzel new NAME --from FILE, or hz workflow migrate)\n")
        return
    names = [f"{namespace}:{name}" for namespace, name, *_ in lines]
    dues = {due: due.replace("T", " ").removesuffix("Z") if due else "-" for due in {x[4] for x in lines}}
    shown = {id_: f"{usd:.2f}" for id_, usd in spent.items()}
    costs = {x[6]: shown[x[6]] for x in lines if x[6] in shown} if shown else {}
    columns = (
        names,
        {x[2] for x in lines},
        {f"v{v}" if v else "-" for v in {x[3] for x in lines}},
        dues.values(),
        {PENDING[bits] for bits in {x[5] for x in lines}},
        ["0.00", *costs.values()],
    )
    widths = [max(len(title), *map(len, values)) for title, values in zip(HEADER, columns, strict=False)]
    row = "  ".join(f"%-{width}s" for width in widths) + "  %s\n"
    if repos is not None:
        _render_with_repos(lines, names, dues, costs, repos, row.removesuffix("\n"), out)
        return
    out.write(row % HEADER)
    out.write("".join([row % (
        shown_name, state, f"v{version}" if version else "-", dues[due], PENDING[pending], costs.get(id_, "0.00"), id_)
        for shown_name, (_, _, state, version, due, pending, id_) in zip(names, lines, strict=True)
    ]))  # fmt: skip


def _render_with_repos(
    lines: list[ListLine],
    names: list[str],
    dues: Mapping[Any, str],
    costs: Mapping[str, str],
    repos: Mapping[str, str],
    row: str,
    out: TextIO,
) -> None:
    """The table of every repository's agents: the ID column padded, then where each one belongs."""
    width = max(len(HEADER[-1]), *(len(x[6]) for x in lines))
    row = row.removesuffix("%s") + f"%-{width}s  %s\n"
    out.write(row % (*HEADER, "REPOSITORY"))
    for shown_name, (_, _, state, version, due, pending, id_) in zip(names, lines, strict=True):
        cells = (shown_name, state, f"v{version}" if version else "-", dues[due], PENDING[pending])
        out.write(row % (*cells, costs.get(id_, "0.00"), id_, repos.get(id_, "-")))


def list_command(
    out: TextIO,
    *,
    state: str | None,
    artifact: str | None,
    contract: str | None,
    json_output: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
    root: Path | None = None,
    everywhere: bool = False,
) -> int:
    """`root`: the repository it runs in; its agents and those of no repository are listed, unless
    `everywhere` (or outside any repository), then every one with the repository it belongs to."""
    from hz.heinzel.repository import Here, elsewhere, named_repository

    name, version = parse_contract(contract)
    everywhere = everywhere or root is None
    today = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%d")
    with Store.from_environ(environ) as store:
        broken = store.index.broken()
        frozen = {spine["agent"]: spine["problem"] for spine in broken}
        adopted = store.index.adopted()
        hidden = set() if everywhere else elsewhere(adopted, Here(root, environ) if root else None)
        if json_output:
            rows = store.index.agents(state=state, artifact=artifact, contract=name, version=version, today=today)
            shown = [as_json(r, frozen) for r in rows if r["id"] not in hidden]
            out.write(json.dumps(shown, indent=2, ensure_ascii=False) + "\n")
            return 0
        lines = store.index.agent_lines(state=state, artifact=artifact, contract=name, version=version)
        spent = store.index.spent_on(today)
    lines = [line for line in lines if line[6] not in hidden] if hidden else lines
    repos = {str(r["id"]): named_repository(r) for r in adopted} if everywhere else None
    render(show_frozen(lines, frozen), spent, out, repos)
    for spine in broken:
        out.write(f"warning: the session of {spine['agent']} breaks at {spine['problem']} (hz heinzel show it)\n")
    return 0
