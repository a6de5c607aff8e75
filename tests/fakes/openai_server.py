"""A fake of OpenAI's `/v1/chat/completions` on loopback (see model_endpoint for what a test can set).

It answers by calling the output tool with the
outcome, or, when offered no tools, with the outcome as JSON text (prompted output).
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.model_endpoint import ModelEndpoint, output_limit, output_tool, utf8


class FakeOpenAI(ModelEndpoint):
    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"  # the openai client adds the path below /v1 itself

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}}
        arguments = json.dumps(self.outcome, ensure_ascii=False)
        if body.get("tools"):
            function = {"name": output_tool([t["function"]["name"] for t in body["tools"]]), "arguments": arguments}
            call = {"id": "call_1", "type": "function", "function": function}
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            reason = "tool_calls"
        else:
            message, reason = {"role": "assistant", "content": arguments}, "stop"
        payload: dict[str, Any] = {
            "id": "chatcmpl-hz1",
            "object": "chat.completion",
            "created": 1764547200,
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": reason, "message": message}],
        }
        sent = sum(utf8(m.get("content") or "") for m in body["messages"]) + sum(utf8(t) for t in body.get("tools", []))
        usage = self.usage(sent, utf8(arguments), output_limit(body))
        if usage is not None:
            payload["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
        return 200, payload


class ScriptedOpenAI(FakeOpenAI):
    """The same endpoint answering each request with the next outcome of a script (then the last again)."""

    def __init__(self, script: list[dict[str, Any]], **options: Any) -> None:
        super().__init__(**options)
        self.script = list(script)

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.script:
            self.outcome = self.script.pop(0)
        return super().answer(path, body)
