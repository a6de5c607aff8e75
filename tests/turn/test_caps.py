from __future__ import annotations

from hz.spend.money import cap_text, usd
from hz.turn.caps import CapDecision, Caps, decide


def test_the_smallest_cap_binds_and_the_worst_case_must_fit() -> None:
    caps = Caps(contract_usd=0.5, turn_usd=1.0, day_usd=5.0, spent_today_usd=0.0)
    assert decide(caps, 0.4) == CapDecision(True, 0.5, "contract", 0.4, 0.5, 0.0)
    assert decide(caps, 0.6) == CapDecision(False, 0.5, "contract", 0.6, 0.5, 0.0)
    assert decide(caps, 0.6).reason == "cap"


def test_the_day_cap_counts_what_all_agents_spent_today() -> None:
    caps = Caps(contract_usd=None, turn_usd=1.0, day_usd=5.0, spent_today_usd=4.8)
    decision = decide(caps, 0.3)
    assert (decision.allowed, decision.binding, round(decision.budget_usd, 6)) == (False, "day", 0.2)


def test_a_free_runner_runs_even_when_the_day_is_spent() -> None:
    caps = Caps(contract_usd=None, turn_usd=1.0, day_usd=5.0, spent_today_usd=9.0)
    assert decide(caps, 0.0) == CapDecision(True, 0.0, "day", 0.0, 5.0, 9.0)


def test_a_skip_names_the_cap_its_limit_what_is_gone_and_what_the_turn_needs() -> None:
    caps = Caps(contract_usd=None, turn_usd=1.0, day_usd=0.5, spent_today_usd=0.34)
    detail = decide(caps, 0.34).detail()
    assert detail == {"name": "day", "limit_usd": 0.5, "spent_usd": 0.34, "needed_usd": 0.34}
    assert cap_text(detail) == "day 0.50 USD, 0.34 spent, this turn needs up to 0.34"
    assert cap_text({**detail, "spent_usd": 0.0042}) == "day 0.50 USD, 0.0042 spent, this turn needs up to 0.34"


def test_amounts_below_a_cent_keep_their_digits() -> None:
    assert [usd(x) for x in (0.0, 0.0042, 0.00042, 0.009999, 0.01, 0.638, 12.5)] == [
        "0.00", "0.0042", "0.00042", "0.01", "0.01", "0.64", "12.50",
    ]  # fmt: skip
