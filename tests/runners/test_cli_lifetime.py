"""A CLI runner's process dies with its turn: on the stop check, and when hz itself is killed with -9
(issue 13, finding 3: a killed `claude` kept running as an orphan while the resumed turn started another).

The scripted `claude` starts a helper of its own and both sleep, each carrying a marker in its command
line; the test scans /proc for the marker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from hz.runners.base import ThinkRequest
from hz.runners.claude_code import ClaudeCodeRunner
from hz.runners.pricing import PRICES

if TYPE_CHECKING:
    from tests.runners.conftest import FakeCli

Requests = Callable[..., ThinkRequest]
ROOT = Path(__file__).resolve().parents[2]


def sleeping_claude(fake: FakeCli, marker: str) -> Path:
    """A `claude` that starts a helper, says so in `ready`, and sleeps (it never notices its parent die)."""
    ready = fake.bin / "ready"
    fake.install(
        "claude",
        "import subprocess\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', {marker!r}])\n"
        f"open({str(ready)!r}, 'w').close()\n"
        "time.sleep(120)",
    )
    return ready


def with_marker(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def gone_within(marker: str, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := with_marker(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def wait_for(path: Path, proc: subprocess.Popen[str] | None = None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc is None or proc.poll() is None, proc.communicate() if proc else ""
        assert time.monotonic() < deadline, f"timed out waiting for {path}"
        time.sleep(0.02)


def left_after_kill_9(
    hz: subprocess.Popen[str], ready: Path, marker: str, *, running: int = 0, timeout: float = 30, sweep: str = ""
) -> list[int]:
    """Kills `hz` with -9 once its CLI is `ready` (with `running` processes carrying `marker`, when given): the
    processes still carrying `marker` 10 s later. Then, pass or fail, whatever carries `marker` (or `sweep`) is
    killed and `hz` reaped, so nothing is left for the next test."""
    try:
        wait_for(ready, hz, timeout=timeout)
        if running:
            assert len(with_marker(marker)) == running
        hz.send_signal(signal.SIGKILL)
        hz.wait(timeout=10)
        return gone_within(marker, 10.0)
    finally:
        for pid in set(with_marker(marker)) | set(with_marker(sweep) if sweep else []):
            os.kill(pid, signal.SIGKILL)
        hz.kill()
        hz.communicate()


HZ_THINKS = """
import sys
from tests.runners.conftest import build_request
from hz.runners.claude_code import ClaudeCodeRunner
from hz.runners.pricing import PRICES
import os
ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], os.environ).think(build_request(timeout_s=120.0))
"""


def test_a_kill_9_of_hz_leaves_no_claude_behind(fake_cli: FakeCli, tmp_path: Path) -> None:
    marker = str(fake_cli.bin)  # in the claude's command line (its path) and its helper's (an argument)
    ready = sleeping_claude(fake_cli, marker)
    hz = subprocess.Popen(
        [sys.executable, "-c", HZ_THINKS], cwd=ROOT, env=fake_cli.environ, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert left_after_kill_9(hz, ready, marker, running=2) == []  # killed while the claude and its helper run


def test_a_kill_9_of_hz_tick_mid_think_leaves_no_claude_behind(repo: Path, fake_cli: FakeCli) -> None:
    from datetime import UTC, datetime

    from tests.turn.agents import adopt, contract_text

    text = contract_text().replace(
        "  title: Weekly note\n", "  title: Weekly note\n  agent:\n    runner: claude-code\n"
    )
    adopt(text, now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    marker = str(fake_cli.bin)
    ready = sleeping_claude(fake_cli, marker)
    tick = subprocess.Popen(
        [sys.executable, "-m", "hz", "tick", "--now", "2026-10-26T09:00Z"], cwd=repo, env=fake_cli.environ,
        text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert left_after_kill_9(tick, ready, marker, timeout=60) == []


class Stop(Exception):
    """Stands in for the turn's Stopped, raised by its stop check."""


def test_a_stopped_turn_ends_the_cli_and_its_helpers(fake_cli: FakeCli, make_request: Requests) -> None:
    marker = str(fake_cli.bin)
    ready = sleeping_claude(fake_cli, marker)

    def check() -> None:
        if ready.exists():
            raise Stop

    runner = ClaudeCodeRunner("claude", "sonnet", PRICES["sonnet"], fake_cli.environ)
    started = time.monotonic()
    try:
        with pytest.raises(Stop):
            runner.think(make_request(timeout_s=60.0, check_cancel=check))
        assert time.monotonic() - started < 10
        assert gone_within(marker, 5.0) == []
    finally:
        for pid in with_marker(marker):
            os.kill(pid, signal.SIGKILL)
