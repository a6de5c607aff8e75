"""A loopback server answering `/v1/messages` as Anthropic documents it (see fake_endpoint for modes).

It answers by calling the output tool with the outcome (or with JSON text under `output_config`), and
counts one token per byte in `usage`. It wants an `x-api-key` header, as Anthropic does.
"""

from __future__ import annotations

import json
from typing import Any

from tests.runners.fake_endpoint import FakeEndpoint, utf8


class FakeAnthropic(FakeEndpoint):
    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path != "/v1/messages":
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}}
        if "output_config" in body or not body.get("tools"):
            content: list[dict[str, Any]] = [{"type": "text", "text": json.dumps(self.outcome, ensure_ascii=False)}]
            reason = "end_turn"
        else:
            name = next((t["name"] for t in body["tools"] if t["name"] == "final_result"), body["tools"][0]["name"])
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
        usage = self.usage(sent, sum(utf8(c) for c in content), int(body.get("max_tokens") or 0))
        if usage is not None:
            payload["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
        return 200, payload
