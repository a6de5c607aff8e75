"""Fixtures shared by the runner tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hz.runners.base import ContextMessage, ThinkRequest


def build_request(**overrides: Any) -> ThinkRequest:
    fields: dict[str, Any] = {
        "agent_id": "hz-01JTEST0000000000000000000",
        "turn_id": "t-01JTEST0000000000000000000",
        "instructions": "You keep the weekly status true.",
        "messages": (ContextMessage("user", '<input name="tickets">3 tickets</input>'),),
        "inputs": {
            "tickets": {
                "done": [
                    {"title": "Ship the importer", "url": "https://tracker.example/T-1"},
                    {"title": "Fix the   flaky test", "url": "https://tracker.example/T-2"},
                ],
                "blocked": [],
            },
            "notes": {"text": "Release moved to Friday."},
        },
        "outputs": {"status": ("done", "summary")},
        "want": frozenset({"draft", "question", "nothing"}),
        "max_tokens": 20_000,
        "max_usd": 1.0,
        "timeout_s": 30.0,
    }
    fields.update(overrides)
    return ThinkRequest(**fields)


@pytest.fixture
def make_request() -> Callable[..., ThinkRequest]:
    """A ThinkRequest for a weekly status with two inputs; keyword arguments replace its fields."""
    return build_request
