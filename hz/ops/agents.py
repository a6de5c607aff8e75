"""List the Heinzelmännchen from the index alone (no spine is opened), filtered like `hz heinzel list`."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC

from hz.errors import HzError
from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context
from hz.ops.models_agents import AgentSummary, ListRequest, ListResult, Repository, Table
from hz.session.frozen import frozen_reason
from hz.session.index import Row
from hz.session.queries import ListLine
from hz.session.store import Store
from hz.spend.day import ledger_day

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


def summary(row: Row, frozen: Mapping[str, str] | None = None, doubt: tuple[float, str] | None = None) -> AgentSummary:
    """One agent; `frozen` maps the agents whose spine breaks to where and why (`hz.session.frozen`);
    `doubt` is the part of its cost today still in doubt, and why (`hz.spend.standing`)."""
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
        "in_doubt_today": round(doubt[0], 6) if doubt else 0.0,
        "in_doubt": doubt[1] if doubt else None,
        "repository": _repository(row),
    }


def _repository(row: Row) -> Repository | None:
    """The repository an adopted agent belongs to, as recorded (None for one of no repository)."""
    if row.get("origin") != "adopted":
        return None
    found = {"root": row.get("repo_root"), "remote": row.get("repo_remote"), "path": row.get("repo_path")}
    return {key: str(value) for key, value in found.items() if value}  # type: ignore[return-value]


def _hidden(store: Store, ctx: Context, everywhere: bool) -> tuple[set[str], list[Row]]:
    """The agents of other repositories (left out unless `everywhere`), and every adopted agent's row."""
    from hz.heinzel.repository import Here, elsewhere

    adopted = store.index.adopted()
    if everywhere:
        return set(), adopted
    return elsewhere(adopted, Here(ctx.root, ctx.environ) if ctx.root else None), adopted


def list_agents(ctx: Context, request: ListRequest) -> ListResult:
    """This repository's agents and those of no repository, unless `everywhere` (or outside any
    repository): then every one, with the repository it belongs to."""
    name, version = parse_contract(request.contract)
    everywhere = request.everywhere or ctx.root is None
    today = ctx.moment().astimezone(UTC).strftime("%Y-%m-%d")
    with Store.from_environ(ctx.environ) as store:
        frozen = {spine["agent"]: spine["problem"] for spine in store.index.broken()}
        hidden, _ = _hidden(store, ctx, everywhere)
        rows = store.index.agents(
            state=request.state, artifact=request.artifact, contract=name, version=version, today=today
        )
        ledger = Spend.of(store, ledger_day())  # the ledger books on the wall clock's day
    agents = [ledger.summary(r, frozen) for r in rows if r["id"] not in hidden]
    return {"schema_version": SCHEMA_VERSION, "agents": agents}


@dataclass(frozen=True)
class Spend:
    """Today's spend as the ledger counts it, by agent, with the part in doubt and why."""

    counted: dict[str, float]
    doubt: dict[str, tuple[float, str]]

    @classmethod
    def of(cls, store: Store, day: str) -> Spend:
        """What the ledger counts on `day`: always the wall clock's (`ledger_day`), whatever `--now` says."""
        from hz.spend.standing import standing, why_in_doubt

        found = standing(store.root, day)
        doubt = {a: (s.in_doubt_usd, why_in_doubt(store.agent_dir(a))) for a, s in found.items() if s.in_doubt_usd}
        return cls({a: s.counted_usd for a, s in found.items()}, doubt)

    def cost(self, agent: str, index_usd: float) -> float:
        """The ledger's count when it has one for the agent, else what the index recorded (a home from
        before the ledger, or an agent that spent nothing through it)."""
        return self.counted.get(agent, index_usd)

    def summary(self, row: Row, frozen: Mapping[str, str]) -> AgentSummary:
        agent = str(row["id"])
        return summary({**row, "cost_today": self.cost(agent, row["cost_today"])}, frozen, self.doubt.get(agent))


def agent_table(ctx: Context, request: ListRequest) -> Table:
    """The same agents as `list_agents`, as the narrow tuples a printed table needs."""
    from hz.heinzel.repository import named_repository

    name, version = parse_contract(request.contract)
    everywhere = request.everywhere or ctx.root is None
    today = ctx.moment().astimezone(UTC).strftime("%Y-%m-%d")
    with Store.from_environ(ctx.environ) as store:
        broken = store.index.broken()
        hidden, adopted = _hidden(store, ctx, everywhere)
        lines = store.index.agent_lines(state=request.state, artifact=request.artifact, contract=name, version=version)
        spent = store.index.spent_on(today)
        ledger = Spend.of(store, ledger_day())  # the ledger books on the wall clock's day
    spent.update(ledger.counted)
    lines = [line for line in lines if line[6] not in hidden] if hidden else lines
    repos = {str(r["id"]): named_repository(r) for r in adopted} if everywhere else None
    frozen = {spine["agent"] for spine in broken}
    return Table(_show_frozen(lines, frozen), spent, repos, [dict(spine) for spine in broken], ledger.doubt)


def _show_frozen(lines: list[ListLine], frozen: Collection[str]) -> list[ListLine]:
    if not frozen:
        return lines
    return [(*line[:2], "frozen", *line[3:]) if line[6] in frozen else line for line in lines]
