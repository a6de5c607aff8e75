"""Fixtures shared by the runner tests."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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


FAKE_PREAMBLE = """import json, os, sys, time
log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.jsonl")
with open(log, "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "stdin": sys.stdin.read(), "cwd": os.getcwd(),
                        "max_output": os.environ.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS")}) + "\\n")
"""


@dataclass
class FakeCli:
    """A scripted executable on a private PATH, standing in for a vendor CLI."""

    bin: Path
    environ: dict[str, str]

    def install(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(f"#!{sys.executable}\n{FAKE_PREAMBLE}{body}\n", encoding="utf-8")
        path.chmod(0o755)

    def calls(self) -> list[dict[str, Any]]:
        log = self.bin / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def fake_cli(tmp_path: Path) -> FakeCli:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    environ = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return FakeCli(bin_dir, environ)
