"""Building the pydantic-ai model for the user's endpoint: OpenAI-compatible or Anthropic.

The key is read from the environment variable the settings name, never from a file of ours. A
self-hosted OpenAI-compatible server (Ollama, llama.cpp) usually needs no key; the client still wants
one, so a placeholder is sent there and only there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from hz.runners.base import RunnerNotConfigured
from hz.runners.settings import EndpointSettings

if TYPE_CHECKING:
    from pydantic_ai.models import Model

LOCAL_PLACEHOLDER_KEY = "hz-local-endpoint"


def endpoint_model_id(settings: EndpointSettings, hint: str | None) -> str:
    model = settings.choice.resolve(hint, settings.class_defaults())
    if model is None:
        raise RunnerNotConfigured(
            "the model runner has no model for this endpoint",
            hint='set model = "<id>" under [runners.model] in config.toml',
        )
    return model


def build_model(settings: EndpointSettings, model_id: str, environ: Mapping[str, str]) -> Model:
    key = environ.get(settings.key_env)
    if not key and settings.base_url is None:
        raise RunnerNotConfigured(
            f"the model runner needs an API key in ${settings.key_env}",
            hint="export the key, or set api_key_env under [runners.model] to the variable that holds it",
        )
    if settings.provider == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        return AnthropicModel(model_id, provider=AnthropicProvider(api_key=key, base_url=settings.base_url))
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=settings.base_url, api_key=key or LOCAL_PLACEHOLDER_KEY)
    return OpenAIChatModel(model_id, provider=provider)
