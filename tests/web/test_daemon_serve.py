"""`hz daemon run --serve`: one process ticks and serves; SIGTERM ends both, the tick first."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx


def test_the_daemon_serves_while_it_ticks(repo: Path) -> None:
    argv = [sys.executable, "-m", "hz", "daemon", "run", "--serve", "--port", "0", "--interval", "0.2"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    daemon = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert daemon.stdout is not None
        line = daemon.stdout.readline()
        found = re.fullmatch(r"hz serve: open (http://127\.0\.0\.1:(\d+))/login\?code=[\w-]+\n", line)
        assert found, line
        token = (Path(os.environ["HZ_HOME"]) / "web" / "token").read_text().strip()
        page = httpx.get(f"{found.group(1)}/", headers={"Authorization": f"Bearer {token}"}, timeout=20)
        assert page.status_code == 200 and "My Heinzelmännchen" in page.text
        assert httpx.get(f"{found.group(1)}/", timeout=20).status_code == 401
    finally:
        daemon.send_signal(signal.SIGTERM)
        _, err = daemon.communicate(timeout=30)
    assert daemon.returncode == 0, err
    assert re.search(r"daemon stopped after \d+ ticks?\n\Z", err), err
