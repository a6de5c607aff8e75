"""A runner's configuration error fails that agent's turn with a clear reason; the tick goes on with the others."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def test_an_anthropic_endpoint_without_a_key_fails_its_agent_and_the_tick_goes_on(repo: Path) -> None:
    folder = Path(os.environ["HZ_CONFIG_HOME"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(
        '[runners]\ndefault = "model"\n[runners.model]\nprovider = "anthropic"\nbase_url = "http://127.0.0.1:9"\n'
    )
    for name in ("a-note", "b-note"):
        adopt(contract_text(name, target=f"file:{name}-{{{{slot:%G-W%V}}}}.md"), now=MONDAY)
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", "2026-10-26T09:00Z"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr  # a failed turn is a result, not hz's error
    assert "Traceback" not in done.stderr
    lines = sorted(done.stdout.splitlines())
    assert [line.split(": ", 1)[0] for line in lines] == ["a-note", "b-note"]  # each agent had its turn
    for line in lines:
        assert ": started -> failed (runner): " in line and "ANTHROPIC_API_KEY" in line, lines
