"""`hz daemon run`: ticks in a loop and stops cleanly on SIGTERM, finishing the tick in progress."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from tests.turn.agents import adopt, contract_text


def test_the_daemon_drafts_then_stops_cleanly_on_sigterm(repo: Path) -> None:
    adopt(contract_text(), now=datetime.now(UTC))
    command = [sys.executable, "-m", "hz", "daemon", "run", "--interval", "0.2"]
    pipe = subprocess.PIPE
    proc = subprocess.Popen(command, cwd=repo, env=dict(os.environ), stdout=pipe, stderr=pipe, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the created turn, in the first tick
        assert first == "weekly-note: started -> drafted\n"
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0
    assert out == ""
    assert err.startswith("daemon stopped after ") and err.endswith(" ticks\n")
