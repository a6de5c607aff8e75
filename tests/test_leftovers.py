"""The guard against processes a test leaves running (tests/leftovers.py, used by tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests import leftovers

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="children are read from /proc")


def test_a_child_left_running_is_named_and_ended() -> None:
    before = leftovers.children()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        left = leftovers.left_since(before, grace_s=0.1)
        assert left == {child.pid: f"{sys.executable} -c import time; time.sleep(60)"}
        leftovers.end(left)
        assert leftovers.children() == before
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def test_an_ended_child_not_yet_waited_for_is_no_leftover() -> None:
    before = leftovers.children()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 10
        while leftovers.children() != before and time.monotonic() < deadline:
            time.sleep(0.02)  # it ends at once and stays a zombie until waited for
        assert leftovers.left_since(before, grace_s=0) == {}
    finally:
        child.wait()
