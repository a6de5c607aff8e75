"""A loopback server answering `/v1/chat/completions` as OpenAI documents it (see fake_endpoint for modes).

It answers every request by calling the output tool (the first tool offered) with the outcome, or,
without tools, with the outcome as JSON text (prompted output). `usage` counts one token per byte.
"""

from __future__ import annotations

import json
from typing import Any

from tests.runners.fake_endpoint import FakeEndpoint, utf8


class FakeOpenAI(FakeEndpoint):
    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}}
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        arguments = json.dumps(self.outcome, ensure_ascii=False)
        if body.get("tools"):
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": _output_tool(body), "arguments": arguments},
            }
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
        usage = self.usage(sent, utf8(arguments), int(limit or 0))
        if usage is not None:
            payload["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
        return 200, payload


def _output_tool(body: dict[str, Any]) -> str:
    names = [t["function"]["name"] for t in body["tools"]]
    return next((n for n in names if n == "final_result"), names[0])
