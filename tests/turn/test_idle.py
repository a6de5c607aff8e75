"""The idle tick stays light: an asleep machine pays a few indexed queries and no heavy imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from tests.turn.agents import adopt, contract_text

HEAVY = ("pydantic", "pygit2", "ruamel", "markdown_it", "pydantic_ai", "httpx")
PROBE = """
import json, sys
from hz.cli import run
code = run(["tick", "--now", "2026-10-27T09:00Z"])
print(json.dumps({"code": code, "heavy": sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))}))
"""


def test_an_idle_tick_imports_nothing_heavy(repo: Path) -> None:
    adopt(contract_text(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    # the created turn runs once; after it the agent is asleep until Friday
    first = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], cwd=repo, env=dict(os.environ),
                           capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert json.loads(first.stdout.splitlines()[-1])["heavy"] != []
    idle = subprocess.run([sys.executable, "-c", PROBE, *HEAVY], cwd=repo, env=dict(os.environ),
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert idle.stdout.splitlines() == ["nothing due", json.dumps({"code": 0, "heavy": []})]
