"""The loopback `git daemon` fixture serves only from its own daemon: a port another test's server took
between the fixture's choice and the daemon's bind is refused (tests/gitstate/conftest.py, `listens`)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from tests.gitstate.conftest import listens

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="listeners are read from /proc")


def test_a_port_is_the_daemons_only_when_the_daemon_holds_its_listener(loopback: str) -> None:
    port = int(loopback.rsplit(":", 1)[1].split("/", 1)[0])
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        mine = taken.getsockname()[1]
        assert listens(os.getpid(), mine) and not listens(other.pid, mine)
        assert listens(os.getpid(), port) and not listens(other.pid, port)  # the daemon is this process's child
    finally:
        taken.close()
        other.kill()
        other.wait()
