"""Remotes for the gitstate tests: a bare repository by path, and the same over git:// and http:// on loopback."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gitstate.factory import git
from tests.gitstate.smart_http import serve_http


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    path = tmp_path / "served" / "team.git"
    path.parent.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "--bare", str(path))
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("git daemon exited early")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                pass
        except OSError:
            time.sleep(0.02)
            continue
        if not listens(proc.pid, port):
            # another test's server took the port between _free_port and the daemon's bind: this test
            # would push and fetch over it; take another port
            raise RuntimeError(f"port {port} answers, but not from this git daemon")
        return
    raise RuntimeError("git daemon did not start listening")


def listens(pid: int, port: int) -> bool:
    """Whether `pid` or one of its descendants holds the socket listening on 127.0.0.1:`port` (True where
    /proc cannot tell)."""
    tcp = Path("/proc/net/tcp")
    if not tcp.is_file():
        return True
    wanted = f"0100007F:{port:04X}"
    inodes = {
        f[9] for f in (line.split() for line in tcp.read_text().splitlines()[1:]) if f[1] == wanted and f[3] == "0A"
    }
    family, seen = [pid], set[int]()
    while family:
        member = family.pop()
        seen.add(member)
        for listing in Path(f"/proc/{member}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                family += [int(child) for child in listing.read_text().split() if int(child) not in seen]
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{member}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd).removeprefix("socket:[").removesuffix("]") in inodes:
                        return True
    return False


@pytest.fixture
def loopback(bare: Path) -> Iterator[str]:
    """`git daemon` serving the bare remote on 127.0.0.1, with push enabled; yields its git:// URL."""
    base = bare.parent
    for _ in range(3):
        port = _free_port()
        proc = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", f"--base-path={base}",
             "--listen=127.0.0.1", f"--port={port}", str(base)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            _wait_for(port, proc)
        except RuntimeError:
            proc.kill()
            proc.wait()
            continue
        try:
            yield f"git://127.0.0.1:{port}/{bare.name}"
        finally:
            proc.terminate()
            proc.wait()
        return
    raise RuntimeError("could not start git daemon")


@pytest.fixture
def http(bare: Path) -> Iterator[str]:
    """Smart HTTP (`git http-backend` behind a loopback HTTP server) serving the bare remote; its URL."""
    with serve_http(bare.parent) as port:
        yield f"http://127.0.0.1:{port}/{bare.name}"


@pytest.fixture(params=["path", "loopback"])
def remote_url(request: pytest.FixtureRequest, bare: Path) -> str:
    """The same bare remote, by path and over the loopback network transport."""
    if request.param == "path":
        return str(bare)
    url: str = request.getfixturevalue("loopback")
    return url
