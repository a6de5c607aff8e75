"""`hz heinzel stop` reaches a CLI runner in the middle of its one long request, not at its timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from tests.turn.agents import adopt, contract_text
from tests.turn.test_fenced_drafts import slow_claude, wait_for

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def test_stop_ends_a_thinking_claude_run(repo: Path, tmp_path: Path) -> None:
    adopt(contract_text(), now=MONDAY)
    folder = tmp_path / "think"
    config = tmp_path / "config"
    config.mkdir()
    (config / "config.toml").write_text('[runners]\ndefault = "claude-code"\n')
    env = {
        **os.environ,
        "HZ_CONFIG_HOME": str(config),
        "PATH": f"{slow_claude(folder)}{os.pathsep}{os.environ['PATH']}",
    }
    ticking = subprocess.Popen(
        [sys.executable, "-m", "hz", "tick", "--now", MONDAY.isoformat(), "--json"],
        cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(folder / "ready", ticking)  # claude is thinking and waits for a `go` that never comes
        started = time.monotonic()
        stop = subprocess.run([sys.executable, "-m", "hz", "heinzel", "stop", "weekly-note"], cwd=repo, env=env,
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert stop.returncode == 0, stop.stderr
        out, err = ticking.communicate(timeout=60)
        took = time.monotonic() - started
    finally:
        if ticking.poll() is None:
            ticking.kill()
    assert ticking.returncode == 0, err
    assert [(e["disposition"], e["reason"]) for e in json.loads(out)["woken"]] == [("abandoned", "stopped")]
    assert took < 15, took  # the run's timeout is minutes away
