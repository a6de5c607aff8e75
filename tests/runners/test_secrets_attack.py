"""Attacks on "secrets never travel" through the model runner: a key variable of the user's own naming, and
an OpenAI-compatible endpoint that echoes the key it was sent into its error and into its draft.

The endpoint is a real loopback server; the tick is a real `hz tick` over a real repository. After it,
the key is looked for in what hz printed, in every byte under $HZ_HOME and in the repository's files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.runners.settings import RunnerSettings
from hz.secrets import secret_values, without_secrets
from tests.runners import test_endpoints
from tests.runners.test_endpoints import Endpoint
from tests.turn.agents import adopt, contract_text

KEY = "local-llm-key-0001"  # in $MY_LLM: a name with no secret-like suffix
ADOPTED = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
DUE = "2026-11-27T15:30Z"  # a Friday after 15:00: the weekly note is due
Hz = Callable[..., Any]
serve = test_endpoints.serve  # the loopback endpoint fixture


def _config(endpoint: Endpoint) -> None:
    config = Path(os.environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        '[runners]\ndefault = "model"\n'
        f'[runners.model]\nbase_url = "{endpoint.url}/v1"\napi_key_env = "MY_LLM"\nmodel = "llama3.1:8b"\n'
        '[runners.prices."llama3.1:8b"]\ninput = 0\noutput = 0\n'
    )


def _sent_key(endpoint: Endpoint) -> str:
    return endpoint.requests[-1][1]["authorization"].removeprefix("Bearer ")


def _leaks(paths: list[Path]) -> list[str]:
    return [str(p) for p in paths if p.is_file() and KEY.encode() in p.read_bytes()]


def test_the_variable_the_runner_settings_name_as_the_key_is_a_secret() -> None:
    RunnerSettings.from_config({"runners": {"model": {"api_key_env": "MY_LLM", "base_url": "http://127.0.0.1:9"}}})

    assert secret_values({"MY_LLM": KEY}) == (KEY,)
    assert without_secrets({"MY_LLM": KEY, "LANG": "C"}) == {"LANG": "C"}  # a runner CLI never gets it


def _completion(body: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    tool = body["tools"][0]["function"]["name"]
    call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": json.dumps(outcome)}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {
        "id": "c-1",
        "object": "chat.completion",
        "created": 1764400000,
        "model": body["model"],
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@pytest.mark.parametrize("echo", ["error", "draft"])
def test_an_endpoint_that_echoes_the_key_leaves_it_nowhere(
    echo: str, repo: Path, serve: Callable[..., Endpoint], hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    def answer(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        key = _sent_key(endpoint)
        if echo == "error":
            return 401, {"error": {"message": f"invalid key {key}", "type": "auth"}}
        text = f"the key is {key}"
        drafts = [{"output": "note", "facet": f, "text": text} for f in ("summary", "risks")]
        return 200, _completion(body, {"kind": "draft", "report": text, "drafts": drafts})

    endpoint = serve(answer)
    monkeypatch.setenv("MY_LLM", KEY)
    _config(endpoint)
    adopt(contract_text(), now=ADOPTED)

    result = hz("tick", "--now", DUE)

    assert endpoint.requests, result.out + result.err
    assert _sent_key(endpoint) == KEY  # it was used, and echoed
    assert KEY not in result.out + result.err
    home = Path(os.environ["HZ_HOME"])
    assert _leaks([*home.rglob("*"), *repo.rglob("*")]) == []
    if echo == "draft":
        (note,) = (repo / "notes").iterdir()
        assert "the key is [redacted]" in note.read_text()
