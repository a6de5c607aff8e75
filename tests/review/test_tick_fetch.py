"""A team tick fetches the remote once: main, the draft branches, hz/state and the leases in one `git fetch`.

Each participant is a real `hz tick` process; a `git` on its PATH notes every git process it starts
(then runs the real git), so the count is what the tick really did, on a hooked remote over loopback.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.turn.team_harness import Member, hourly, seed_remote

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)


def counting(member: Member, folder: Path) -> tuple[dict[str, str], Path]:
    """The member's environment with a `git` that logs its arguments, one line per process."""
    folder.mkdir(parents=True)
    log = folder / "git.log"
    real = shutil.which("git")
    assert real is not None
    script = folder / "git"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(0o755)
    return {**member.environ, "PATH": f"{folder}{os.pathsep}{member.environ['PATH']}"}, log


def verbs(log: Path) -> list[str]:
    """The git command of each logged process (`fetch`, `push`, `for-each-ref`, …)."""
    found = []
    for line in log.read_text().splitlines():
        words = [w for w in line.split() if not w.startswith("-") and "=" not in w]
        found.append(next((w for w in words if not w.startswith("/")), ""))
    return found


def test_a_team_tick_fetches_the_remote_once(tmp_path: Path, bare: Path, loopback: str) -> None:  # noqa: F811
    seed_remote(tmp_path, bare, loopback, hourly("@priya", ["@omar"]))
    priya = Member.join(tmp_path, "priya", loopback)
    omar = Member.join(tmp_path, "omar", loopback)
    priya.tick(SLOT - timedelta(hours=2))  # adopted; the first (created) turn drafted and pushed

    environ, log = counting(priya, tmp_path / "priya-git")
    woken = priya.tick(SLOT + timedelta(minutes=1), environ)
    assert [(e["action"], e.get("disposition")) for e in woken] == [("started", "drafted")]
    ran = verbs(log)
    print(f"owner's drafting tick: {len(ran)} git processes, {ran.count('fetch')} fetch, {ran.count('push')} push")
    assert ran.count("fetch") == 1, ran
    assert ran.count("ls-remote") == 0, ran

    environ, log = counting(omar, tmp_path / "omar-git")
    woken = omar.tick(SLOT + timedelta(minutes=2), environ)  # the slot is done: the maintainer takes nothing
    ran = verbs(log)
    print(f"maintainer's tick after it: {len(ran)} git processes, {ran.count('fetch')} fetch, {ran.count('push')} push")
    assert ran.count("fetch") == 1, ran
