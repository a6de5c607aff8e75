"""Spending caps: the cheap check before a turn's first model call, against the turn's worst case.

Three caps bind a turn: the contract's own cap, which this agent's turns share per UTC day (when it sets
one); the user's `[heinzel] max_usd`, which limits every single turn even when a contract allows more;
and the user's `[heinzel] max_usd_per_day`, one budget shared by all of their agents, from which today's
spending is already gone. The turn's worst case is its token ceiling at the runner's price; when that
could cross any cap the turn is skipped with reason `cap` and no model is called.

This check only skips early. The authority is the spend ledger (hz.spend): each model request reserves
its own worst case there, in one transaction across all processes, before it leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# When neither the contract nor the user names a token ceiling, a turn may use this many tokens.
DEFAULT_MAX_TOKENS = 50_000


@dataclass(frozen=True)
class Caps:
    contract_usd: float | None  # the contract's cap on this agent's day, if it has one
    turn_usd: float  # [heinzel] max_usd
    day_usd: float  # [heinzel] max_usd_per_day
    spent_today_usd: float  # all of the user's agents, reservations included
    agent_spent_today_usd: float = 0.0  # this agent today, what the contract's cap is counted against
    turn_spent_usd: float = 0.0  # this turn's earlier requests (a turn resumed after a crash)
    over_reported: bool = False  # the runner's endpoint over-reported today: it makes no request until tomorrow


@dataclass(frozen=True)
class CapDecision:
    allowed: bool
    budget_usd: float  # what the runner may spend at most this turn
    binding: str  # which cap is smallest: contract | turn | day
    worst_case_usd: float
    limit_usd: float = 0.0  # the binding cap's limit
    spent_usd: float = 0.0  # what is gone from it already

    @property
    def reason(self) -> str | None:
        return None if self.allowed else "cap"

    def detail(self) -> dict[str, Any]:
        """The skip's `cap` field (hz.session.turn_payloads.CapSkip)."""
        return {
            "name": self.binding,
            "limit_usd": round(self.limit_usd, 6),
            "spent_usd": round(self.spent_usd, 6),
            "needed_usd": round(self.worst_case_usd, 6),
        }


def decide(caps: Caps, worst_case_usd: float) -> CapDecision:
    """Allow the turn only when its worst case fits under every cap."""
    scopes = {"turn": (caps.turn_usd, caps.turn_spent_usd), "day": (caps.day_usd, caps.spent_today_usd)}
    if caps.contract_usd is not None:
        scopes["contract"] = (caps.contract_usd, caps.agent_spent_today_usd)
    rooms = {name: max(0.0, limit - spent) for name, (limit, spent) in scopes.items()}
    binding = min(rooms, key=lambda name: (rooms[name], name))
    budget = rooms[binding]
    # A free runner (worst case 0) may run even when the day's money is gone: it spends nothing.
    allowed = worst_case_usd <= budget if worst_case_usd > 0 else True
    if caps.over_reported and worst_case_usd > 0:
        return CapDecision(False, 0.0, "over-reported", worst_case_usd)
    return CapDecision(allowed, budget, binding, worst_case_usd, *scopes[binding])


def caps_now(plan: Any, deps: Any, events: Any, turn: str | None, *, contract: bool = True) -> Caps:
    """The caps of `plan`'s next model call as things stand: what is gone today, for all agents and this one.

    From the spend ledger when the turn has one (it counts requests still in flight, in any process);
    otherwise from the spine and the index's record, as before the ledger.
    """
    from hz.turn import history

    settings = deps.settings
    contract_usd = plan.contract_usd if contract else None
    now = deps.clock()
    if deps.ledger is not None:
        from hz.spend.day import ledger_day

        day = ledger_day()  # the wall clock's, whatever `--now` the tick was given
        spent = deps.ledger.spent(agent=plan.agent_id, turn=turn or "", day=day)
        flagged = deps.ledger.runner_flagged(str(getattr(deps.runner, "name", "")), day)
        return Caps(
            contract_usd,
            settings.max_usd,
            settings.max_usd_per_day,
            spent.day_usd,
            spent.agent_usd,
            spent.turn_usd,
            flagged,
        )
    agent_spent = history.spent_since(events, now.replace(hour=0, minute=0, second=0, microsecond=0))
    return Caps(contract_usd, settings.max_usd, settings.max_usd_per_day, deps.spent_today(), agent_spent)
