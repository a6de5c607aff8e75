"""What a test left running in the test process: child processes that outlived it.

A process a test started and never ended (an `hz daemon`, a tick left in the background, a server)
keeps its environment: it may go on asking a fake forge's old address, which the system soon gives to
the next test's fake on this worker, and answer that test's requests or use up its queued faults. The
autouse guard in tests/conftest.py asks this module after every test and fails the test that left one.

Linux lists a process's children in /proc/<pid>/task/<tid>/children (one read per thread, a few
microseconds); elsewhere `children()` is empty and the guard checks nothing.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

GRACE_S = 2.0  # a child ended in the test's last moments may still be on its way out
# helpers the standard library starts once and keeps for the life of the test process, by design
KEPT = ("from multiprocessing.resource_tracker import", "from multiprocessing.forkserver import")


def children() -> set[int]:
    """The pids of this process's live children (zombies, already ended and only unreaped, left out)."""
    found: set[int] = set()
    for listing in Path("/proc/self/task").glob("*/children"):
        try:
            found.update(int(pid) for pid in listing.read_text().split())
        except OSError:  # the thread ended while we looked
            continue
    return {pid for pid in found if _state(pid) not in ("Z", "X", "")}


def left_since(before: set[int], grace_s: float = GRACE_S) -> dict[int, str]:
    """The children started since `before` that are still running after `grace_s`, with their command lines."""
    end = time.monotonic() + grace_s
    left = _new(before)
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = _new(before)
    return left


def _new(before: set[int]) -> dict[int, str]:
    shown = {pid: command_line(pid) for pid in sorted(children() - before)}
    return {pid: command for pid, command in shown.items() if not any(kept in command for kept in KEPT)}


def end(pids: dict[int, str]) -> None:
    """Kill the processes a test left, so the next test starts clean (the test that started them failed)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            continue


def command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    shown = raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    return shown if len(shown) <= 200 else shown[:197] + "..."


def _state(pid: int) -> str:
    """The one-letter state of `pid` (R, S, Z, ...), '' when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rpartition(")")[2].split()[0]
