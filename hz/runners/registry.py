"""Which runner a turn uses: the contract's `agent.runner`, with `any` meaning the user's default.

Names: `offline` (the embedded default), `model` (pydantic-ai against the configured endpoint),
`claude-code` and `codex` (the vendor CLIs). Runner modules are imported only when one is built, so
choosing the offline runner never loads pydantic-ai.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from hz.runners.base import Runner, RunnerNotConfigured
from hz.runners.settings import RUNNER_NAMES, RunnerSettings

ANY = "any"


def resolve_name(name: str | None, settings: RunnerSettings) -> str:
    """The runner a contract's hint stands for; `any` and no hint mean the user's default."""
    if name in (None, "", ANY):
        return settings.default
    assert name is not None
    if name not in RUNNER_NAMES:
        raise RunnerNotConfigured(
            f"hz has no runner named {name!r}",
            hint=f"use one of: {ANY}, {', '.join(RUNNER_NAMES)}",
        )
    return name


def get_runner(
    name: str | None,
    settings: RunnerSettings,
    environ: Mapping[str, str] = os.environ,
    *,
    model: str | None = None,
) -> Runner:
    """Build the runner `name` names, for the contract's model hint `model` (a class or a provider id)."""
    resolved = resolve_name(name, settings)
    if resolved == "offline":
        from hz.runners.offline import OfflineRunner

        return OfflineRunner()
    if resolved == "model":
        return _model_runner(settings, environ, model)
    if resolved == "claude-code":
        from hz.runners.claude_code import ClaudeCodeRunner

        return ClaudeCodeRunner.from_settings(settings, environ, model)
    from hz.runners.codex import CodexRunner

    return CodexRunner.from_settings(settings, environ, model)


def _model_runner(settings: RunnerSettings, environ: Mapping[str, str], hint: str | None) -> Runner:
    from hz.runners.endpoints import build_model, endpoint_model_id
    from hz.runners.model import ModelRunner
    from hz.runners.pricing import price_of

    endpoint = settings.endpoint
    model_id = endpoint_model_id(endpoint, hint)
    price = price_of(model_id, settings.prices)
    model = build_model(endpoint, model_id, environ)
    return ModelRunner(model, price, max_output_tokens=endpoint.max_output_tokens, output=endpoint.output)


def runner_for(name: str | None, environ: Mapping[str, str] = os.environ, *, model: str | None = None) -> Runner:
    """`get_runner` with the settings read from the user's config.toml."""
    from hz.config import load_user_config

    settings = RunnerSettings.from_config(load_user_config(environ).raw)
    return get_runner(name, settings, environ, model=model)
