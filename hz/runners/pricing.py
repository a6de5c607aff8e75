"""What model tokens cost, and what a turn can cost at most.

Prices are USD per million tokens: input (not cached), output, and cached input (a prompt-cache read).
The table holds the models hz names by default; the user prices anything else in `config.toml`:

    [runners.prices."llama3.1:8b"]
    input = 0
    output = 0

A model without a known price has no worst case, and the caps cannot be checked without one, so
looking it up is an error rather than a silent zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hz.errors import ConfigError


@dataclass(frozen=True)
class Price:
    input: float  # USD per million uncached input tokens
    output: float  # USD per million output tokens
    cached: float  # USD per million cached input tokens

    def cost(self, input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> float:
        """USD for one usage; `input_tokens` includes the cached ones, as pydantic-ai counts them."""
        uncached = max(input_tokens - cached_tokens, 0)
        try:
            return (uncached * self.input + cached_tokens * self.cached + output_tokens * self.output) / 1_000_000
        except OverflowError:  # a count past a float's range (a CLI's JSON integer): no cost; settling counts the grant
            return math.inf

    @property
    def dearest(self) -> float:
        """USD per million of the dearest kind of token: what a token of unknown kind costs at most."""
        return max(self.input, self.output, self.cached)

    def worst_case(self, max_tokens: int) -> float:
        return max_tokens * self.dearest / 1_000_000

    def affordable_tokens(self, usd: float) -> int:
        """How many tokens of any kind `usd` buys for certain."""
        if self.dearest == 0:
            return UNBOUNDED  # a free (local) model: USD puts no bound on tokens
        return int(usd * 1_000_000 / self.dearest)


UNBOUNDED = 2**62
FREE = Price(0.0, 0.0, 0.0)

# Published list prices (USD per million tokens) of the models hz maps its classes to.
PRICES: dict[str, Price] = {
    # Anthropic
    "claude-haiku-5-5": Price(0.1, 0.5, 0.01),
    "claude-sonnet-5-5": Price(2.0, 10.0, 0.1),
    "claude-opus-5-5": Price(4.0, 20.0, 0.2),
    "claude-opus-4-1": Price(15.0, 75.0, 1.5),
    "claude-sonnet-4-5": Price(3.0, 15.0, 0.3),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.1),
    # the claude CLI's aliases, priced as the generation they name today
    "opus": Price(4.0, 20.0, 0.2),
    "sonnet": Price(2.0, 10.0, 0.1),
    "haiku": Price(0.1, 0.5, 0.01),
    # OpenAI
    "gpt-6-luna": Price(0.1, 0.5, 0.01),
    "gpt-6.1-terra": Price(1.0, 5.0, 0.05),
    "gpt-6.1-sol": Price(2.0, 10.0, 0.1),
    "gpt-5": Price(1.25, 10.0, 0.125),
    "gpt-5-codex": Price(1.25, 10.0, 0.125),
    "gpt-5-mini": Price(0.25, 2.0, 0.025),
    "gpt-5-nano": Price(0.05, 0.4, 0.005),
    "gpt-4.1": Price(2.0, 8.0, 0.5),
    "gpt-4.1-mini": Price(0.4, 1.6, 0.1),
    "gpt-4o": Price(2.5, 10.0, 1.25),
    "gpt-4o-mini": Price(0.15, 0.6, 0.075),
}


class UnknownPrice(ConfigError):
    """A model has no price, so a turn's worst case cannot be computed."""


def price_table(raw_config: Mapping[str, Any]) -> dict[str, Price]:
    """The built-in table overlaid with `[runners.prices.<model>]` from the user's config."""
    table = dict(PRICES)
    section = raw_config.get("runners", {}).get("prices", {})
    if not isinstance(section, Mapping):
        raise ConfigError("runners.prices must be a table of models", hint='e.g. [runners.prices."llama3.1"]')
    for model, entry in section.items():
        table[str(model)] = _configured_price(str(model), entry)
    return table


def _configured_price(model: str, entry: Any) -> Price:
    if not isinstance(entry, Mapping):
        raise ConfigError(f"runners.prices.{model} must be a table with input and output")
    values: dict[str, float] = {}
    for key in ("input", "output", "cached"):
        value = entry.get(key, values.get("input") if key == "cached" else None)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(
                f"runners.prices.{model}.{key} must be a number of USD per million tokens, got {value!r}",
                hint="input and output are required; cached defaults to input",
            )
        values[key] = float(value)
    unknown = set(entry) - {"input", "output", "cached"}
    if unknown:
        raise ConfigError(
            f"runners.prices.{model}: unknown key {sorted(unknown)[0]}", hint="keys: input, output, cached"
        )
    return Price(values["input"], values["output"], values["cached"])


def price_of(model: str, table: Mapping[str, Price]) -> Price:
    """The price of `model`, also found by its bare name when it carries a provider prefix or a date."""
    for candidate in _candidates(model):
        if candidate in table:
            return table[candidate]
    raise UnknownPrice(
        f"no price known for model {model!r}, so the caps cannot bound its cost",
        hint=f'add [runners.prices."{model}"] with input and output (USD per million tokens) to config.toml',
    )


def _candidates(model: str) -> list[str]:
    bare = model.split(":", 1)[1] if ":" in model and model.split(":", 1)[0] in {"openai", "anthropic"} else model
    candidates = [model, bare]
    # "claude-sonnet-4-5-20250929" is priced as "claude-sonnet-4-5"
    head, _, tail = bare.rpartition("-")
    if tail.isdigit() and len(tail) == 8:
        candidates.append(head)
    return candidates
