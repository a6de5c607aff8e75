"""A fake of Anthropic's `/v1/messages` on loopback (see model_endpoint for what a test can set).

It answers by calling the output tool with the outcome, or with the outcome as JSON text under
`output_config` or when offered no tools.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.model_endpoint import ModelEndpoint, output_limit, output_tool, utf8


class FakeAnthropic(ModelEndpoint):
    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path != "/v1/messages":
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}}
        if "output_config" in body or not body.get("tools"):
            content: list[dict[str, Any]] = [{"type": "text", "text": json.dumps(self.outcome, ensure_ascii=False)}]
            reason = "end_turn"
        else:
            name = output_tool([t["name"] for t in body["tools"]])
            content, reason = [{"type": "tool_use", "id": "toolu_01", "name": name, "input": self.outcome}], "tool_use"
        payload: dict[str, Any] = {
            "id": "msg_01hz",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": reason,
            "stop_sequence": None,
        }
        sent = utf8(body.get("system") or "") + utf8(body["messages"]) + sum(utf8(t) for t in body.get("tools", []))
        usage = self.usage(sent, sum(utf8(c) for c in content), output_limit(body))
        if usage is not None:
            payload["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
        return 200, payload
