"""`hz heinzel list`: every Heinzelmännchen from the index alone, filtered by state, artifact, contract."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from hz.session.queries import ListLine

HEADER = ("NAME", "STATE", "VERSION", "NEXT DUE", "PENDING", "TODAY", "ID")
# `Index.agent_lines` gives the pending items as bits: 1 draft, 2 amendment, 4 question.
PENDING = ("-", "draft", "amendment", "draft,amendment", "question", "draft,question", "amendment,question",
           "draft,amendment,question")  # fmt: skip


def doubt_lines(lines: list[ListLine], doubt: Mapping[str, tuple[float, str]]) -> str:
    """A line under the table for each agent with spend in doubt: how much of TODAY, and why."""
    if not doubt:
        return ""
    return "".join(
        f"{namespace}:{name}: {doubt[id_][0]:.3f} in doubt: {doubt[id_][1]} "
        "(in TODAY at its worst case until the endpoint's usage settles it or the day ends)\n"
        for namespace, name, *_, id_ in lines
        if id_ in doubt
    )


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
    from hz.ops import Context
    from hz.ops.agents import agent_table, list_agents
    from hz.ops.models_agents import ListRequest

    ctx = Context(environ=environ, root=root, now=now)
    request = ListRequest(state=state, artifact=artifact, contract=contract, everywhere=everywhere)  # type: ignore[arg-type]
    if json_output:
        out.write(json.dumps(list_agents(ctx, request)["agents"], indent=2, ensure_ascii=False) + "\n")
        return 0
    table = agent_table(ctx, request)
    render(table.lines, table.spent, out, table.repos)
    out.write(doubt_lines(table.lines, table.doubt))
    for spine in table.broken:
        out.write(f"warning: the session of {spine['agent']} breaks at {spine['problem']} (hz heinzel show it)\n")
    return 0
