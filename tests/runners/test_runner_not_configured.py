"""An Anthropic endpoint without a key fails only its own agent's turn, with "runner not configured" and
the reason; the tick goes on with the others and does not exit 3 (issue 13, finding 4: a pydantic-ai
`UserError` escaped and ended the whole tick)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tests.turn.agents import adopt, contract_text

if TYPE_CHECKING:
    from tests.runners.conftest import FakeCli

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
DRAFT = {
    "kind": "draft",
    "report": "drafted the week's note",
    "drafts": [{"output": "note", "facet": f, "text": f"The {f}."} for f in ("summary", "risks")],
    "lessons": [],
    "amendment": None,
    "question": None,
    "summary": None,
}
ANSWER = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "num_turns": 1,
    "result": "",
    "total_cost_usd": 0.0123,
    "usage": {"input_tokens": 900, "output_tokens": 120},
    "structured_output": DRAFT,
}


def test_one_agent_without_its_key_leaves_the_other_running(repo: Path, fake_cli: FakeCli) -> None:
    config = Path(os.environ["HZ_CONFIG_HOME"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(
        '[runners]\ndefault = "model"\n[runners.model]\nprovider = "anthropic"\nbase_url = "http://127.0.0.1:9"\n'
    )
    adopt(contract_text("keyless", target="file:keyless-{{slot:%G-W%V}}.md"), now=MONDAY)
    fine = contract_text("claude-note", target="file:claude-{{slot:%G-W%V}}.md")
    adopt(
        fine.replace("  title: Weekly note\n", "  title: Weekly note\n  agent:\n    runner: claude-code\n"), now=MONDAY
    )
    fake_cli.install("claude", f"print({json.dumps(json.dumps(ANSWER))})")
    env = {k: v for k, v in fake_cli.environ.items() if k != "ANTHROPIC_API_KEY"}

    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", "2026-10-26T09:00Z"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip

    assert done.returncode not in (3, 1), done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    assert "drafted" in lines["claude-note"], done.stdout
    assert len(fake_cli.calls()) == 1  # the fine agent's runner ran
    assert (
        "runner not configured: the anthropic endpoint at http://127.0.0.1:9 needs an API key in $ANTHROPIC_API_KEY"
        in (lines["keyless"])
    ), done.stdout
