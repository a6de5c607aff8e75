"""Building the pydantic-ai model for the user's endpoint: OpenAI-compatible or Anthropic.

The key is read from the environment variable the settings name, never from a file of ours, and is
always handed to the client: left out, the client libraries would read `OPENAI_API_KEY` or
`ANTHROPIC_API_KEY` from hz's own environment behind the settings' back. A self-hosted
OpenAI-compatible server (Ollama, llama.cpp) usually needs no key; the client still wants one, so a
placeholder is sent there and only there. Anthropic's API always wants a key.

Every way the construction can fail is a `RunnerNotConfigured` for the agent whose turn asked for the
runner, never an exception that ends the tick for every agent.

The clients make no retries of their own (`max_retries = 0`): a reservation covers one request on the
wire, and a client retrying a timed-out request would send a second paid request under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from hz.runners.base import RunnerNotConfigured
from hz.runners.settings import EndpointSettings

if TYPE_CHECKING:
    from pydantic_ai.models import Model

LOCAL_PLACEHOLDER_KEY = "hz-local-endpoint"
_KEY_HINT = "export the key, or set api_key_env under [runners.model] to the variable that holds it"


def endpoint_model_id(settings: EndpointSettings, hint: str | None) -> str:
    model = settings.choice.resolve(hint, settings.class_defaults())
    if model is None:
        raise RunnerNotConfigured(
            "the model runner has no model for this endpoint",
            hint='set model = "<id>" under [runners.model] in config.toml',
        )
    return model


def build_model(settings: EndpointSettings, model_id: str, environ: Mapping[str, str]) -> Model:
    from pydantic_ai.exceptions import UserError

    key = environ.get(settings.key_env) or None
    if key is None and (settings.provider == "anthropic" or settings.base_url is None):
        where = f" at {settings.base_url}" if settings.base_url else ""
        raise RunnerNotConfigured(
            f"the {settings.provider} endpoint{where} needs an API key in ${settings.key_env}", hint=_KEY_HINT
        )
    try:
        return _model(settings, model_id, key)
    except (UserError, ValueError, TypeError) as exc:  # what pydantic-ai and the clients say of bad settings
        raise RunnerNotConfigured(f"the {settings.provider} endpoint cannot be set up: {exc}", hint=_KEY_HINT) from None


def _model(settings: EndpointSettings, model_id: str, key: str | None) -> Model:
    if settings.provider == "anthropic":
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        anthropic = AnthropicProvider(api_key=key, base_url=settings.base_url)
        anthropic.client.max_retries = 0
        return AnthropicModel(model_id, provider=anthropic)
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    openai = OpenAIProvider(base_url=settings.base_url, api_key=key or LOCAL_PLACEHOLDER_KEY)
    openai.client.max_retries = 0
    return OpenAIChatModel(model_id, provider=openai)
