"""The user's runner settings: the `[runners]` tables of config.toml.

    [runners]
    default = "model"                 # what a contract's `agent.runner: any` means; default "offline"

    [runners.model]                   # the pydantic-ai runner
    provider = "openai"               # "openai" (any OpenAI-compatible endpoint) or "anthropic"
    base_url = "http://127.0.0.1:11434/v1"
    api_key_env = "OLLAMA_API_KEY"    # the variable holding the key; never the key itself
    model = "llama3.1:8b"             # used for every class unless fast/balanced/deep name others
    max_output_tokens = 4096
    output = "tool"                   # how the outcome comes back: tool | native | prompted (plain JSON text)

    [runners.claude-code]             # and [runners.codex]
    command = "claude"
    model = "sonnet"

Model hints come from the contract (`agent.model`): a class (fast, balanced, deep) or a provider id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hz.errors import ConfigError
from hz.runners.pricing import PRICES, Price, price_table
from hz.secrets import count_as_secret

RUNNER_NAMES = ("offline", "model", "claude-code", "codex")
MODEL_CLASSES = ("fast", "balanced", "deep")
# how a model returns the outcome: as a call of an output tool, through the provider's native structured
# output, or as JSON text it was asked for (for small local models without reliable tool calling)
OUTPUT_MODES = ("tool", "native", "prompted")

# What each class means when the user names no model of their own.
DEFAULT_CLASSES: dict[str, dict[str, str]] = {
    "anthropic": {"fast": "claude-haiku-5-5", "balanced": "claude-sonnet-5-5", "deep": "claude-opus-5-5"},
    "openai": {"fast": "gpt-6-luna", "balanced": "gpt-6.1-terra", "deep": "gpt-6.1-sol"},
    "claude-code": {"fast": "haiku", "balanced": "sonnet", "deep": "opus"},
    "codex": {"fast": "gpt-6-luna", "balanced": "gpt-6.1-terra", "deep": "gpt-6.1-sol"},
}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


@dataclass(frozen=True)
class ModelChoice:
    """Which model one runner uses: a configured id, or one per class."""

    model: str | None = None
    classes: Mapping[str, str] = field(default_factory=dict)

    def resolve(self, hint: str | None, defaults: Mapping[str, str]) -> str | None:
        """A provider id passes through; a class maps to the configured or default model for it."""
        if hint and hint not in MODEL_CLASSES:
            return hint
        cls = hint or "balanced"
        return self.classes.get(cls) or self.model or defaults.get(cls)


@dataclass(frozen=True)
class EndpointSettings:
    provider: str = "openai"
    base_url: str | None = None
    api_key_env: str | None = None
    choice: ModelChoice = field(default_factory=ModelChoice)
    max_output_tokens: int = 4096
    output: str = "tool"  # one of OUTPUT_MODES

    @property
    def key_env(self) -> str:
        return self.api_key_env or DEFAULT_KEY_ENV[self.provider]

    def class_defaults(self) -> Mapping[str, str]:
        # an OpenAI-compatible server of one's own serves whatever was pulled into it, so it has no defaults
        return {} if self.provider == "openai" and self.base_url is not None else DEFAULT_CLASSES[self.provider]


@dataclass(frozen=True)
class CliSettings:
    command: str
    choice: ModelChoice = field(default_factory=ModelChoice)


@dataclass(frozen=True)
class RunnerSettings:
    default: str = "offline"
    endpoint: EndpointSettings = field(default_factory=EndpointSettings)
    claude_code: CliSettings = field(default_factory=lambda: CliSettings("claude"))
    codex: CliSettings = field(default_factory=lambda: CliSettings("codex"))
    prices: Mapping[str, Price] = field(default_factory=lambda: dict(PRICES))

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> RunnerSettings:
        """Read `[runners]` from a parsed config.toml (`UserConfig.raw`)."""
        section = _table(raw.get("runners", {}), "runners")
        default = section.get("default", "offline")
        if default not in RUNNER_NAMES:
            raise ConfigError(f"runners.default must be one of {', '.join(RUNNER_NAMES)}, got {default!r}")
        endpoint = _endpoint(_table(section.get("model", {}), "runners.model"))
        count_as_secret(endpoint.key_env)  # `MY_LLM` holds a key too: scrubbed, and kept from runner CLIs
        return cls(
            default=default,
            endpoint=endpoint,
            claude_code=_cli(_table(section.get("claude-code", {}), "runners.claude-code"), "claude"),
            codex=_cli(_table(section.get("codex", {}), "runners.codex"), "codex"),
            prices=price_table(raw),
        )


def _table(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{name} must be a table")
    return value


def _string(table: Mapping[str, Any], key: str, name: str) -> str | None:
    value = table.get(key)
    if value is not None and not (isinstance(value, str) and value):
        raise ConfigError(f"{name}.{key} must be a non-empty string, got {value!r}")
    return value


def _choice(table: Mapping[str, Any], name: str) -> ModelChoice:
    classes = {c: v for c in MODEL_CLASSES if (v := _string(table, c, name))}
    return ModelChoice(_string(table, "model", name), classes)


def _endpoint(table: Mapping[str, Any]) -> EndpointSettings:
    name = "runners.model"
    _known(table, name, {"provider", "base_url", "api_key_env", "model", "max_output_tokens", "output", *MODEL_CLASSES})
    provider = table.get("provider", "openai")
    if provider not in DEFAULT_KEY_ENV:
        raise ConfigError(f"{name}.provider must be openai or anthropic, got {provider!r}")
    max_out = table.get("max_output_tokens", 4096)
    if isinstance(max_out, bool) or not isinstance(max_out, int) or max_out < 1:
        raise ConfigError(f"{name}.max_output_tokens must be a positive integer, got {max_out!r}")
    output = table.get("output", "tool")
    if output not in OUTPUT_MODES:
        raise ConfigError(f"{name}.output must be one of {', '.join(OUTPUT_MODES)}, got {output!r}")
    return EndpointSettings(
        provider=provider,
        base_url=_string(table, "base_url", name),
        api_key_env=_string(table, "api_key_env", name),
        choice=_choice(table, name),
        max_output_tokens=max_out,
        output=output,
    )


def _cli(table: Mapping[str, Any], command: str) -> CliSettings:
    name = f"runners.{'claude-code' if command == 'claude' else 'codex'}"
    _known(table, name, {"command", "model", *MODEL_CLASSES})
    return CliSettings(_string(table, "command", name) or command, _choice(table, name))


def _known(table: Mapping[str, Any], name: str, keys: set[str]) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise ConfigError(f"unknown key {name}.{unknown[0]}", hint=f"known keys: {', '.join(sorted(keys))}")
