from __future__ import annotations

from hz.turn.caps import CapDecision, Caps, decide


def test_the_smallest_cap_binds_and_the_worst_case_must_fit() -> None:
    caps = Caps(contract_usd=0.5, turn_usd=1.0, day_usd=5.0, spent_today_usd=0.0)
    assert decide(caps, 0.4) == CapDecision(True, 0.5, "contract", 0.4)
    assert decide(caps, 0.6) == CapDecision(False, 0.5, "contract", 0.6)
    assert decide(caps, 0.6).reason == "cap"


def test_the_day_cap_counts_what_all_agents_spent_today() -> None:
    caps = Caps(contract_usd=None, turn_usd=1.0, day_usd=5.0, spent_today_usd=4.8)
    decision = decide(caps, 0.3)
    assert (decision.allowed, decision.binding, round(decision.budget_usd, 6)) == (False, "day", 0.2)


def test_a_free_runner_runs_even_when_the_day_is_spent() -> None:
    caps = Caps(contract_usd=None, turn_usd=1.0, day_usd=5.0, spent_today_usd=9.0)
    assert decide(caps, 0.0) == CapDecision(True, 0.0, "day", 0.0)
