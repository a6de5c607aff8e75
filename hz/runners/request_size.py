"""How big a model request is: its characters, UTF-8 bytes and parts, for the token ceiling and the spend bound.

The token ceiling only needs a guess (`Sent.estimate`); the money needs a bound no endpoint can exceed
(`Sent.bound`, `hz.runners.spend.input_bound`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import ModelRequestParameters

from hz.runners.spend import input_bound

CHARS_PER_TOKEN = 3  # the token ceiling's estimate: fewer than the usual ~4, so that it errs on the safe side


@dataclass(frozen=True)
class Sent:
    """What one request sends: its characters and UTF-8 bytes, in how many parts."""

    chars: int
    utf8_bytes: int
    parts: int

    @property
    def estimate(self) -> int:
        """A guess of its tokens for the token ceiling (a ceiling, not money: a guess will do)."""
        return self.chars // CHARS_PER_TOKEN + 1

    @property
    def bound(self) -> int:
        """At most how many tokens any endpoint may count it as (hz.runners.spend.input_bound)."""
        return input_bound(self.utf8_bytes, self.parts)


def measure(messages: Sequence[ModelMessage], instructions: str, params: ModelRequestParameters) -> Sent:
    """What a request sends: its text, the instructions and the tool and output schemas."""
    texts = [instructions]
    for tool in [*params.function_tools, *params.output_tools]:
        texts += [tool.name, tool.description or "", json.dumps(tool.parameters_json_schema, ensure_ascii=False)]
    if params.output_object is not None:  # native or prompted output sends the schema apart from the tools
        texts.append(json.dumps(params.output_object.json_schema, ensure_ascii=False))
    template = getattr(params, "prompted_output_template", None)
    if isinstance(template, str):
        texts.append(template)
    for message in messages:
        instructions_part = getattr(message, "instructions", None)
        if isinstance(instructions_part, str):
            texts.append(instructions_part)
        texts += [_part_text(part) for part in message.parts]
    return Sent(sum(map(len, texts)), sum(len(t.encode("utf-8", "surrogatepass")) for t in texts), len(texts))


def _part_text(part: Any) -> str:
    for attribute in ("content", "args"):
        value = getattr(part, attribute, None)
        if isinstance(value, str):
            return value
        if value is not None:
            return json.dumps(value, default=str, ensure_ascii=False)
    return ""
