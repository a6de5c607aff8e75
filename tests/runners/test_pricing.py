from __future__ import annotations

import pytest

from hz.errors import ConfigError
from hz.runners.pricing import PRICES, Price, UnknownPrice, price_of, price_table


def test_cost_counts_cached_tokens_at_the_cached_price() -> None:
    price = Price(input=3.0, output=15.0, cached=0.3)
    # 1,000 input tokens of which 400 cached, 200 output tokens
    assert price.cost(1_000, 200, cached_tokens=400) == pytest.approx((600 * 3.0 + 400 * 0.3 + 200 * 15.0) / 1e6)


def test_worst_case_is_the_ceiling_at_the_dearest_token() -> None:
    assert PRICES["claude-sonnet-4-5"].worst_case(200_000) == pytest.approx(3.0)
    assert Price(0, 0, 0).worst_case(10**9) == 0.0
    assert Price(1.0, 4.0, 0.1).affordable_tokens(0.02) == 5_000


def test_prices_are_found_by_provider_prefix_and_dated_id() -> None:
    assert price_of("anthropic:claude-sonnet-4-5-20250929", PRICES) == PRICES["claude-sonnet-4-5"]
    assert price_of("openai:gpt-5-mini", PRICES) == PRICES["gpt-5-mini"]


def test_an_unknown_model_has_no_silent_zero_price() -> None:
    with pytest.raises(UnknownPrice) as info:
        price_of("llama3.1:8b", PRICES)
    assert info.value.message == "no price known for model 'llama3.1:8b', so the caps cannot bound its cost"
    assert info.value.hint == (
        'add [runners.prices."llama3.1:8b"] with input and output (USD per million tokens) to config.toml'
    )


def test_configured_prices_extend_the_table() -> None:
    table = price_table(
        {"runners": {"prices": {"llama3.1:8b": {"input": 0, "output": 0}, "mine": {"input": 1, "output": 2}}}}
    )
    assert price_of("llama3.1:8b", table) == Price(0.0, 0.0, 0.0)
    assert table["mine"] == Price(1.0, 2.0, 1.0)  # cached defaults to the input price


def test_a_malformed_price_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        price_table({"runners": {"prices": {"mine": {"input": "cheap", "output": 1}}}})
    assert info.value.message == "runners.prices.mine.input must be a number of USD per million tokens, got 'cheap'"
    with pytest.raises(ConfigError) as info:
        price_table({"runners": {"prices": {"mine": {"input": 1, "output": 1, "batch": 2}}}})
    assert info.value.message == "runners.prices.mine: unknown key batch"
