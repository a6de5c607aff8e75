"""Attack: a CLI whose helper leaves the CLI's process group (`setsid`), then hz is killed with -9.

The watchdog ends the CLI's process group; a helper in a session of its own is outside it and would go on
(calling a paid API, uncounted) after the turn that paid for it is gone.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.runners import conftest as runner_fixtures
from tests.runners.test_cli_lifetime import HZ_THINKS, ROOT, left_after_kill_9

fake_cli = runner_fixtures.fake_cli  # the runner tests' fixture: a scripted CLI on a private PATH


def escaping_claude(fake: Any, marker: str) -> Path:
    """A `claude` whose helper calls setsid() (a new session and process group), then both sleep."""
    ready = fake.bin / "ready"
    helper = "import os, time; os.setsid(); time.sleep(120)"
    fake.install(
        "claude",
        "import subprocess\n"
        f"subprocess.Popen([sys.executable, '-c', {helper!r}, {marker!r}])\n"
        "time.sleep(0.5)\n"
        f"open({str(ready)!r}, 'w').close()\n"
        "time.sleep(120)",
    )
    return ready


@pytest.mark.xfail(
    strict=True,
    reason="hz/runners/cli.py: the watchdog kills the CLI's process group only; a descendant that called "
    "setsid() is in no group hz knows and outlives the killed hz (needs a cgroup, or the watchdog as "
    "PR_SET_CHILD_SUBREAPER killing every descendant)",
)
def test_a_helper_that_leaves_the_group_dies_with_hz_too(fake_cli: Any) -> None:
    marker = f"{fake_cli.bin}-escape"
    ready = escaping_claude(fake_cli, marker)
    hz = subprocess.Popen(
        [sys.executable, "-c", HZ_THINKS], cwd=ROOT, env=fake_cli.environ, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    # killed while the helper runs, in its own session
    assert left_after_kill_9(hz, ready, marker, running=1, sweep=str(fake_cli.bin)) == []
