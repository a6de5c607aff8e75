"""What a turn runs under, pinned when it starts: the contract version and everything taken from it.

A `Plan` is plain data read from one contract version, so a resumed or waiting turn keeps running under
the version it started with even when the contract was amended meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from hz.turn.caps import DEFAULT_MAX_TOKENS


@dataclass(frozen=True)
class Plan:
    agent_id: str
    name: str
    version: int
    fingerprint: str  # the contract fingerprint of this version
    body: str  # the contract's Markdown body, what the model reads as its contract
    outputs: Mapping[str, tuple[str, ...]]  # output -> facets
    targets: Mapping[str, str]  # output -> target URI (may hold {slot…})
    inputs: tuple[str, ...] = ()
    wake_on: tuple[str, ...] | None = None  # None: every input wakes it
    scope: str = "personal"
    root: Path | None = None  # the working tree drafts go into
    timeout_s: float = 900.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    contract_usd: float | None = None  # the contract's `cost.max_usd_per_day` for this agent
    render_on_schedule: str = "always"
    runner: str = "any"
    model: str | None = None
    max_turns: int | None = None
    skills: Mapping[str, str] = field(default_factory=dict)  # name -> fingerprint
    schedule: tuple[Any, ...] = ()  # hz.schedule.Cron values
    catch_up: str = "latest"
    freshness_s: float | None = None  # how long an approved output stays true (`hz.freshness` as a duration)
    tools: tuple[str, ...] = ()  # `hz.tools` as written (`hz:git.log.read`); hz.turn.hztools offers them
    contract: Any = field(default=None, compare=False, repr=False)  # the loaded contract, for gather


def _seconds(value: Any, default: float) -> float:
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, int | float):
        return float(value)
    return default


def plan_from_contract(
    contract: Any, *, agent_id: str, name: str, version: int, root: Path | None, default_tz: str = "UTC"
) -> Plan:
    """Read a loaded contract (`hz.contract.load.Contract`) into a plan."""
    from hz.schedule import crons_from

    hz = contract.frontmatter.hz
    outputs = {n: tuple(getattr(o, "facets", ()) or ("text",)) for n, o in hz.outputs.items()}
    targets = {n: str(o.target) for n, o in hz.outputs.items()}
    cost = getattr(hz, "cost", None)
    agent = getattr(hz, "agent", None)
    on = getattr(hz, "on", None)
    return Plan(
        agent_id=agent_id,
        name=name,
        version=version,
        fingerprint=contract.contract_fingerprint,
        body=contract.agent_body,  # author comments are never shown to an agent
        outputs=outputs,
        targets=targets,
        inputs=tuple(sorted(getattr(hz, "inputs", {}) or {})),
        wake_on=None if on is None else tuple(str(w).split(".")[0] for w in on),
        scope=str(hz.scope),
        root=root,
        timeout_s=_seconds(getattr(hz, "timeout", None), 900.0),
        max_tokens=int(getattr(cost, "max_tokens", None) or DEFAULT_MAX_TOKENS),
        contract_usd=_contract_usd(hz),
        render_on_schedule=str(getattr(hz, "render_on_schedule", None) or "always"),
        runner=str(getattr(agent, "runner", None) or "any"),
        model=getattr(agent, "model", None),
        max_turns=getattr(agent, "max_turns", None),
        schedule=crons_from(getattr(hz, "schedule", None), default_tz),
        catch_up=str(getattr(hz, "catch_up", "latest")),
        freshness_s=_seconds(getattr(hz, "freshness", None), 0.0) or None,
        tools=tuple(str(t) for t in getattr(hz, "tools", ()) or ()),
        contract=contract,
    )


def _contract_usd(hz: Any) -> float | None:
    """The contract's own cap: `cost.max_usd_per_day`, what this agent may spend in one day."""
    value = getattr(getattr(hz, "cost", None), "max_usd_per_day", None)
    return float(value) if isinstance(value, int | float) else None
