"""Amounts as the user reads them: cents, and below a cent the digits that say how much (0.0042 USD)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# What a settlement's flag means, as the tick's line and `hz heinzel show` say it.
FLAGS = {
    "over-reported": "the endpoint reported more than the request allowed; this runner makes no more requests today",
    "no-usage": "the endpoint sent no usage; the request's reservation is counted as spent",
}


def usd(amount: float) -> str:
    """Two decimals from a cent up; below a cent, two significant digits, never a bare 0.00."""
    shown = float(f"{amount:.2g}")  # two significant digits, so 0.009999 rounds up to the cent it is
    if amount >= 0.01 or shown >= 0.01 or amount <= 0:
        return f"{max(0.0, amount):.2f}"
    return f"{shown:.{1 - math.floor(math.log10(shown))}f}"


def cap_text(cap: Mapping[str, Any]) -> str:
    """A cap skip's detail (`turn.skipped.cap`) in words: which cap, its limit, what is gone, what was needed."""
    if cap["name"] == "over-reported":
        return "over-reported: the endpoint reported more than it was allowed; this runner waits for tomorrow (UTC)"
    scope = {"turn": "turn", "day": "day", "contract": "contract per day"}[str(cap["name"])]
    limit, spent, needed = (float(cap[k]) for k in ("limit_usd", "spent_usd", "needed_usd"))
    return f"{scope} {usd(limit)} USD, {usd(spent)} spent, this turn needs up to {usd(needed)}"
