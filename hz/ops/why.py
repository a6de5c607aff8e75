"""Why did a contract's slot run as it did, or not at all? The facts that decide it, and one sentence.

The facts come from what this machine already has, with no fetch: the contract on the repository's
checkout (scope, owner, delegates, schedule, `contract:` inputs), the lease ref and `hz/state` as the last
tick's fetch left them (hz.ops.observed reads them the same way for the graph), the `[state]` settings
(the grace period) and this machine's agent of the contract (its session: fates of personal slots, cap
skips). `hz.ops.why_verdict` turns the facts into the answer, so a module that derives a tick's
dispositions can replace the gathering here without changing the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from hz.errors import HzError
from hz.ops import SCHEMA_VERSION
from hz.ops.context import Context
from hz.ops.models_agents import Cap
from hz.ops.models_why import AgentState, Fate, Grace, Roles, WhyData, WhyRequest, WhyResult
from hz.ops.why_verdict import verdict

if TYPE_CHECKING:
    from hz.contract.load import Contract
    from hz.contract.project import CompiledContract
    from hz.session.store import Store


def why(ctx: Context, request: WhyRequest) -> WhyResult:
    now = ctx.moment()
    compiled = _contract(ctx, request.contract)
    agent = _agent(ctx, request.contract, compiled)
    contract = compiled.contract if compiled is not None else _agent_contract(ctx, agent)
    slot = _slot(request.slot, contract, now)
    data: dict[str, Any] = {
        "contract": compiled.qualified_name if compiled is not None else str(agent["name"]),  # type: ignore[index]
        "id": None, "scope": None, "slot": slot, "fate": None, "lease": None, "grace": None, "upstream": [],
        "cap": None, "roles": _roles(ctx, contract), "notes": [],
        "agent": None if agent is None else AgentState(id=agent["id"], name=agent["name"], state=agent["state"]),
    }  # fmt: skip
    if contract is not None:
        data["scope"] = str(contract.frontmatter.hz.scope)
        if compiled is not None and data["scope"] == "team" and contract.frontmatter.id is not None:
            _team_facts(ctx, data, f"hz-{contract.frontmatter.id}", contract, slot, now)
    if data["id"] is None and agent is not None:
        data["id"] = agent["id"]
        _local_facts(ctx, data, agent, slot)
    facts = cast(WhyData, {**data, "verdict": ""})
    facts["verdict"] = verdict(facts, now)
    return {"schema_version": SCHEMA_VERSION, "why": facts}


def _contract(ctx: Context, name: str) -> CompiledContract | None:
    """The contract on this checkout by name or id; None outside a repository or when no contract is called so."""
    if ctx.root is None:
        return None
    from hz.contract.project import compile_repository

    compiled = compile_repository(ctx.root, ctx.environ)
    for c in compiled.contracts:
        found = None if c.contract is None else c.contract.frontmatter.id
        if found is not None and name == f"hz-{found}":
            return c
    try:
        return compiled.get(name)
    except HzError:
        return None


def _agent_contract(ctx: Context, agent: Mapping[str, Any] | None) -> Contract | None:
    """The contract version this machine's agent runs, when no checkout has the contract."""
    if agent is None or not agent.get("contract_version"):
        return None
    from hz.heinzel.versions import load_version
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        directory = store.agent_dir(str(agent["id"]))
    return load_version(directory, int(agent["contract_version"]), str(agent["namespace"]))


def _agent(ctx: Context, name: str, contract: CompiledContract | None) -> dict[str, Any] | None:
    """This machine's agent of the contract (by the contract's name, else the name or id asked for)."""
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        row = store.index.agent(name) if contract is None else None
        if row is None and contract is not None:
            namespace, _, bare = contract.qualified_name.rpartition(":")
            rows = store.index.agents_of_contract(bare, namespace or "me") or store.index.agents_of_contract(bare, "me")
            row = next((r for r in rows if not r["retired"]), rows[0] if rows else None)
    if row is None and contract is None:
        raise HzError(f"no contract or agent named {name!r}", hint="hz heinzel list and hz workflow list show them")
    return None if row is None else dict(row)


def _slot(asked: str | None, contract: Contract | None, now: datetime) -> str | None:
    """The slot asked about in its one spelling, or the latest one due by `now` by the contract's schedule."""
    from hz.slots import parse_slot, slot_text

    if asked is not None:
        try:
            return slot_text(parse_slot(asked if asked.endswith("Z") else asked + "Z"))
        except ValueError:
            raise HzError(
                f"{asked[:40]!r} is not a slot", hint="write the UTC minute, e.g. 2026-10-30T15:00Z"
            ) from None
    if contract is None:
        return None
    from hz.schedule import crons_from, latest_slot

    latest = latest_slot(crons_from(contract.frontmatter.hz.schedule), now)
    return None if latest is None else slot_text(latest)


def _roles(ctx: Context, contract: Contract | None) -> Roles:
    from hz.config import load_user_config

    me = load_user_config(ctx.environ).handle
    if contract is None:
        return {"owner": None, "maintainers": [], "me": me, "my_role": None}
    hz = contract.frontmatter.hz
    owner, maintainers = str(hz.owner), [str(m) for m in hz.maintainers]
    role = "owner" if me == owner else "delegate" if me in maintainers else None
    return {"owner": owner, "maintainers": maintainers, "me": me, "my_role": role}


def _team_facts(ctx: Context, data: dict[str, Any], lease_id: str, contract: Contract, slot: str | None,
                now: datetime) -> None:  # fmt: skip
    """The lease, the grace period, the slot's receipt and the upstream drafts, as the last fetch left them."""
    from hz.gitstate.settings import load_state_settings
    from hz.ops.why_team import lease_view, slot_fate, state_receipts, upstream_pending
    from hz.slots import parse_slot

    assert ctx.root is not None
    data["id"] = lease_id
    settings = load_state_settings(ctx.root)
    if slot is not None:
        due = parse_slot(slot)
        data["grace"] = Grace(due=slot, owner_from=slot, others_from=_utc(due + settings.grace),
                              grace_s=int(settings.grace.total_seconds()))  # fmt: skip
    receipts, holder, notes = state_receipts(ctx)
    data["notes"] += notes
    data["lease"] = lease_view(ctx, lease_id, slot, now, settings.skew)
    data["fate"] = slot_fate(receipts, lease_id, slot, holder)
    data["upstream"] = upstream_pending(receipts, contract, ctx)


def _local_facts(ctx: Context, data: dict[str, Any], agent: Mapping[str, Any], slot: str | None) -> None:
    """The fate of a personal slot and the last cap that stopped a turn, from the agent's own session."""
    from hz.session.store import Store

    with Store.from_environ(ctx.environ) as store:
        events = store.read(str(agent["id"])).events
        data["fate"] = _spine_fate(store, events, str(agent["id"]), slot)
    caps = [e.data["cap"] for e in events if e.kind in ("turn.skipped", "turn.finished") and e.data.get("cap")]
    data["cap"] = cast(Cap, dict(caps[-1])) if caps else None


def _spine_fate(store: Store, events: list[Any], agent: str, slot: str | None) -> Fate | None:
    """The last turn (or skip) whose keys name the slot; with no slot, the agent's last turn."""
    wanted = None if slot is None else f"{agent}@{slot}"
    placed = {e.turn: str(e.data.get("key")) for e in events if e.kind == "draft.placed"}
    decided = {str(e.data.get("key")): str(e.data.get("decision", "approved")) for e in events
               if e.kind == "approval.observed"}  # fmt: skip
    started = {e.turn: e.data.get("keys", []) for e in events if e.kind == "turn.started"}
    for event in reversed(events):
        if event.kind == "turn.finished":
            keys = started.get(event.turn, [])
        elif event.kind == "turn.skipped":
            keys = event.data.get("keys", [])
        else:
            continue
        if wanted is not None and wanted not in keys:
            continue
        draft = placed.get(event.turn) if event.kind == "turn.finished" else None
        fate = None if draft is None else decided.get(draft, _draft_status(store, agent, draft))
        return Fate(outcome="finished" if event.kind == "turn.finished" else "skipped",
                    disposition=str(event.data.get("disposition", "skipped")), reason=event.data.get("reason"),
                    at=event.ts, usd=float(event.data.get("usd", 0.0)), holder=None, role=None, draft=draft,
                    draft_fate=fate)  # fmt: skip
    return None


def _draft_status(store: Store, agent: str, key: str) -> str | None:
    found = [d["status"] for d in store.index.drafts(status=None, agent=agent) if d["key"] == key]
    return str(found[0]) if found else None


def _utc(moment: datetime) -> str:
    from hz.slots import slot_text

    return slot_text(moment)


__all__ = ["why"]
