"""Spending caps: checked before the first model call against the turn's worst case.

Three caps bind a turn: the contract's own per-turn cap (when it sets one); the user's `[heinzel] max_usd`,
which limits every single turn even when a contract allows more; and the user's `[heinzel] max_usd_per_day`,
one budget shared by all of their agents, from which today's spending is already gone. The turn's worst case
is its token ceiling at the runner's price; when that could cross any cap the turn is skipped with reason
`cap` and no model is called. The smallest cap is also handed to the runner, which enforces it during the
turn, so recorded spend can never exceed a cap.
"""

from __future__ import annotations

from dataclasses import dataclass

# When neither the contract nor the user names a token ceiling, a turn may use this many tokens.
DEFAULT_MAX_TOKENS = 50_000


@dataclass(frozen=True)
class Caps:
    contract_usd: float | None  # the contract's per-turn cap, if it has one
    turn_usd: float  # [heinzel] max_usd
    day_usd: float  # [heinzel] max_usd_per_day
    spent_today_usd: float  # all of the user's agents, turns and usage events


@dataclass(frozen=True)
class CapDecision:
    allowed: bool
    budget_usd: float  # what the runner may spend at most this turn
    binding: str  # which cap is smallest: contract | turn | day
    worst_case_usd: float

    @property
    def reason(self) -> str | None:
        return None if self.allowed else "cap"


def decide(caps: Caps, worst_case_usd: float) -> CapDecision:
    """Allow the turn only when its worst case fits under every cap."""
    limits = {"turn": caps.turn_usd, "day": max(0.0, caps.day_usd - caps.spent_today_usd)}
    if caps.contract_usd is not None:
        limits["contract"] = caps.contract_usd
    binding = min(limits, key=lambda name: (limits[name], name))
    budget = limits[binding]
    # A free runner (worst case 0) may run even when the day's money is gone: it spends nothing.
    allowed = worst_case_usd <= budget if worst_case_usd > 0 else True
    return CapDecision(allowed, budget, binding, worst_case_usd)
