"""An Actions run fetches the tips of `hz/state` and the leases, not their history (issue 22).

The remote's `hz/state` and an old lease chain carry a long history here (written straight into the bare
repository, as a year of slots would leave it); the run is the tick workflow's own checkout and steps
(tests.turn.team_harness.actions_checkout) and a real `hz tick`. What the clone holds afterwards is counted
in objects: bounded by what the tip holds, whatever the history behind it.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

from hz.gitstate.lint_since import CUT, CUT_HINT
from tests.turn.test_late_runner import KEY, hz
from tests.turn.test_stateless_run import PAST_GRACE, actions, finished, remote, tick
from tests.turn.test_team import git

HISTORY = 1500  # commits on hz/state and on the old lease chain, each with its own blob
OLD_LEASE = "refs/hz/lease/hz-01KC9999999999999999999999"


def long_history(bare: Path) -> None:
    """`HISTORY` commits on hz/state, each adding one event-sized file, then one that empties the tree (the
    tip a tick reads holds nothing of them); an old contract's lease chain as long. Both by fast-import,
    which runs no hook: the history is the remote's past, not a push under test."""
    when = int(datetime(2025, 10, 26, tzinfo=UTC).timestamp())
    lines: list[str] = []
    for ref, path in (("refs/heads/hz/state", "events/hz-01KC9999999999999999999999/{n:06d}.json"),
                      (OLD_LEASE, "lease.json")):  # fmt: skip
        for n in range(HISTORY):
            blob = f'{{"n": {n}, "pad": "{"x" * 300}"}}\n'.encode()
            # each commit of a ref continues from the one before it (fast-import keeps the branch's tip)
            lines += [f"commit {ref}", f"committer hz <hz@localhost> {when + n * 3600} +0000", "data 5", "old\n"]
            lines += [f"M 100644 inline {path.format(n=n)}", f"data {len(blob)}", blob.decode(), ""]
        if ref.startswith("refs/heads/"):
            lines += [f"commit {ref}", f"committer hz <hz@localhost> {when + HISTORY * 3600} +0000", "data 5",
                      "old\n", "deleteall", ""]  # fmt: skip
    stream = "\n".join(lines) + "\n"
    subprocess.run(["git", "--git-dir", str(bare), "fast-import", "--quiet"], input=stream.encode(), check=True)


def objects(clone: Path) -> int:
    counted = dict(line.split(": ") for line in git("count-objects", "-v", cwd=clone).splitlines())
    return int(counted["count"]) + int(counted["in-pack"])


def test_an_actions_run_fetches_the_tips_of_a_long_history_and_still_runs_and_pushes(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    long_history(bare)
    clone, environ = actions(tmp_path, bare, 123)
    checked_out = objects(clone)
    assert tick(clone, environ, PAST_GRACE) == [("started", "drafted")]
    assert [e["key"] for e in finished(bare)] == [KEY]
    fetched = objects(clone) - checked_out
    print(f"objects in the clone: {checked_out} checked out, {fetched} more after the tick")
    # the tick's fetches and its own writes: commits, trees and blobs of one slot, not of 2 x 1,500 commits
    assert fetched < 60, fetched
    shallow = (clone / ".git" / "shallow").read_text().split()
    assert len(shallow) == 2  # hz/state's tip and the old lease's: main came whole
    # a lint here would judge the oldest commit it has as the branch's first: it says so, and lints nothing
    lint = hz("state", "lint", cwd=clone, environ=environ)
    assert (lint.returncode, lint.stdout, lint.stderr) == (1, "", f"error: hz/state: {CUT}\n  hint: {CUT_HINT}\n")
