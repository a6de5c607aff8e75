"""The model runner built from settings against loopback servers that speak the OpenAI and Anthropic APIs."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from hz.errors import ConfigError
from hz.runners.base import RunnerFailed, RunnerNotConfigured, ThinkRequest
from hz.runners.registry import get_runner
from hz.runners.settings import RunnerSettings

Requests = Callable[..., ThinkRequest]
OUTCOME = {"kind": "nothing", "report": "no input moved since Friday"}


class Endpoint:
    """A loopback HTTP server answering model requests with canned JSON, keeping what it was sent."""

    def __init__(self, answer: Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]) -> None:
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, payload = answer(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def serve() -> Iterator[Callable[..., Endpoint]]:
    started: list[Endpoint] = []

    def start(answer: Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]) -> Endpoint:
        endpoint = Endpoint(answer)
        endpoint.thread.start()
        started.append(endpoint)
        return endpoint

    yield start
    for endpoint in started:
        endpoint.server.shutdown()
        endpoint.server.server_close()
        endpoint.thread.join()


def openai_answer(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    tool = body["tools"][0]["function"]["name"]
    call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": json.dumps(OUTCOME)}}
    return 200, {
        "id": "chatcmpl-9f2",
        "object": "chat.completion",
        "created": 1764400000,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
            }
        ],
        "usage": {"prompt_tokens": 812, "completion_tokens": 64, "total_tokens": 876},
    }


def anthropic_answer(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    # structured output comes as JSON text under output_config, or as a call of the output tool
    if "output_config" in body:
        content = [{"type": "text", "text": json.dumps(OUTCOME)}]
    else:
        content = [{"type": "tool_use", "id": "toolu_01", "name": body["tools"][0]["name"], "input": OUTCOME}]
    return 200, {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": "end_turn" if "output_config" in body else "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 700, "output_tokens": 70, "cache_read_input_tokens": 200},
    }


def test_a_local_openai_compatible_server_without_a_key(serve: Callable[..., Endpoint], make_request: Requests) -> None:
    endpoint = serve(openai_answer)
    config = {
        "runners": {
            "default": "model",
            "model": {"base_url": f"{endpoint.url}/v1", "model": "llama3.1:8b"},
            "prices": {"llama3.1:8b": {"input": 0, "output": 0}},
        }
    }
    runner = get_runner("any", RunnerSettings.from_config(config), environ={})
    result = runner.think(make_request(max_tokens=30_000))

    assert result.outcome.report == "no input moved since Friday"
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.usd) == (812, 64, 0.0)
    assert runner.worst_case_usd(1_000_000) == 0.0
    ((path, headers, body),) = endpoint.requests
    assert path == "/v1/chat/completions"
    assert body["model"] == "llama3.1:8b"
    assert headers["authorization"] == "Bearer hz-local-endpoint"
    assert body.get("max_tokens", body.get("max_completion_tokens")) == 4096


def test_anthropic_with_the_key_from_the_environment(serve: Callable[..., Endpoint], make_request: Requests) -> None:
    endpoint = serve(anthropic_answer)
    config = {"runners": {"model": {"provider": "anthropic", "base_url": endpoint.url}}}
    runner = get_runner("model", RunnerSettings.from_config(config), environ={"ANTHROPIC_API_KEY": "sk-test"})
    result = runner.think(make_request())

    assert result.outcome.kind == "nothing"
    ((path, headers, body),) = endpoint.requests
    assert path == "/v1/messages"
    assert body["model"] == "claude-sonnet-5-5"  # the balanced class
    assert "sk-test" in (headers.get("x-api-key"), headers.get("authorization", "").removeprefix("Bearer "))
    assert result.usage.cached_tokens == 200
    # sonnet 5.5: 2 USD per million input, 10 output, 0.1 cached
    expected = (result.usage.input_tokens - 200) * 2.0 + 200 * 0.1 + result.usage.output_tokens * 10.0
    assert result.usage.usd == pytest.approx(expected / 1e6)


def test_a_server_error_is_a_runner_failure(serve: Callable[..., Endpoint], make_request: Requests) -> None:
    endpoint = serve(lambda path, body: (400, {"error": {"message": "model 'nope' not found", "type": "invalid"}}))
    config = {
        "runners": {"model": {"base_url": endpoint.url, "model": "nope"}, "prices": {"nope": {"input": 0, "output": 0}}}
    }
    runner = get_runner("model", RunnerSettings.from_config(config), environ={})
    with pytest.raises(RunnerFailed) as info:
        runner.think(make_request())
    assert info.value.message.startswith("the model failed: ")
    assert "model 'nope' not found" in info.value.message


def test_the_vendor_endpoint_needs_its_key() -> None:
    with pytest.raises(RunnerNotConfigured) as info:
        get_runner("model", RunnerSettings(), environ={})
    assert info.value.message == "runner not configured: the openai endpoint needs an API key in $OPENAI_API_KEY"
    assert info.value.hint == "export the key, or set api_key_env under [runners.model] to the variable that holds it"


def test_prompted_output_for_a_small_local_model(serve: Callable[..., Endpoint], make_request: Requests) -> None:
    def answer(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        message = {"role": "assistant", "content": json.dumps(OUTCOME)}
        choice = {"index": 0, "finish_reason": "stop", "message": message}
        usage = {"prompt_tokens": 900, "completion_tokens": 30, "total_tokens": 930}
        return 200, {
            "id": "c-1",
            "object": "chat.completion",
            "created": 1,
            "model": body["model"],
            "choices": [choice],
            "usage": usage,
        }

    endpoint = serve(answer)
    config = {
        "runners": {
            "model": {"base_url": endpoint.url, "model": "qwen3:4b", "output": "prompted"},
            "prices": {"qwen3:4b": {"input": 0, "output": 0}},
        }
    }
    result = get_runner("model", RunnerSettings.from_config(config), environ={}).think(make_request())
    assert result.outcome.report == "no input moved since Friday"
    ((_, _, body),) = endpoint.requests
    assert "tools" not in body  # the schema travels in the prompt, not as a tool
    systems = [m["content"] for m in body["messages"] if m["role"] == "system"]
    assert systems[0] == "You keep the weekly status true."
    assert any('"drafts"' in text and '"question"' in text for text in systems[1:])  # the outcome's schema


def test_an_unknown_output_mode_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        RunnerSettings.from_config({"runners": {"model": {"output": "json"}}})
    assert info.value.message == "runners.model.output must be one of tool, native, prompted, got 'json'"
