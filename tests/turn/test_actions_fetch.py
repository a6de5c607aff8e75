"""An Actions run fetches the tips of `hz/state` and of the due contracts' leases, not their history (issue 22).

The remote's `hz/state` and an old lease chain carry a long history here (written straight into the bare
repository, as a year of slots would leave it); the run is the tick workflow's own checkout and steps
(tests.turn.team_harness.actions_checkout) and a real `hz tick`. What the clone holds afterwards is counted
in objects: bounded by what the tip holds, whatever the history behind it.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.gitstate.lint_since import CUT, CUT_HINT
from tests.turn.test_late_runner import CONTRACT_ID, HOURLY, KEY, LEASE, hz
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
    assert len(shallow) == 1  # hz/state's tip: main came whole, and the old lease's contract is not due
    # a lint here would judge the oldest commit it has as the branch's first: it says so, and lints nothing
    lint = hz("state", "lint", cwd=clone, environ=environ)
    assert (lint.returncode, lint.stdout, lint.stderr) == (1, "", f"error: hz/state: {CUT}\n  hint: {CUT_HINT}\n")


QUIET = 6  # contracts on main not due at the run's moment, each with a lease chain on the remote


def quiet_contracts(tmp_path: Path, bare: Path) -> list[str]:
    """`QUIET` more team contracts on main, daily at 03:00 and skipping missed slots (none is due at 11:12),
    each with a lease chain of 3 commits on the remote (by fast-import: the past, nothing a tick reads);
    their lease refs."""
    seed = tmp_path / "seed"
    refs, lines = [], []
    when = int(datetime(2026, 10, 20, tzinfo=UTC).timestamp())
    for n in range(QUIET):
        contract = f"01KC44444444444444444444{n:02d}"
        text = HOURLY.replace(CONTRACT_ID, contract).replace("team-pulse", f"quiet-{n}")
        text = text.replace('schedule: "0 * * * *"', 'schedule: "0 3 * * *"\n  catch_up: skip')
        (seed / "workflows" / f"quiet-{n}.prose.md").write_text(text)
        refs.append(f"refs/hz/lease/hz-{contract}")
        for token in range(3):
            blob = f'{{"lease": "hz-{contract}", "token": {token + 1}}}\n'
            lines += [f"commit {refs[-1]}", f"committer hz <hz@localhost> {when + token * 86400} +0000", "data 5",
                      "old\n", "deleteall", "M 100644 inline lease.json", f"data {len(blob)}", blob, ""]  # fmt: skip
    git("add", "workflows", cwd=seed)
    git("commit", "-q", "-m", "quiet contracts", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    stream = "\n".join(lines) + "\n"
    subprocess.run(["git", "--git-dir", str(bare), "fast-import", "--quiet"], input=stream.encode(), check=True)
    return refs


def woke(entries: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """What a run's tick did, but the quiet contracts' first wakes (adopted afresh by every run, each waits
    for the grace period without looking at its lease): all `QUIET` of them are there."""
    early = [e for e in entries if e[0] == "skipped" and str(e[1]).startswith("waiting for the grace period")]
    assert len(early) == QUIET, entries
    return [e for e in entries if e not in early]


def lease_copies(clone: Path) -> list[str]:
    """The lease refs whose copies the clone holds (hz's own under refs/hz/sync/…), as the remote names them."""
    listed = git("for-each-ref", "--format=%(refname)", "refs/hz/sync/", cwd=clone).splitlines()
    return sorted("refs/hz/lease/" + name.split("/hz/lease/", 1)[1] for name in listed if "/hz/lease/" in name)


def test_an_actions_run_of_many_contracts_fetches_the_leases_of_the_due_ones_alone(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    quiet = quiet_contracts(tmp_path, bare)
    # a first run takes the hourly slot of 10:00, so the due contract has a lease of its own on the remote
    first, first_env = actions(tmp_path, bare, 122)
    assert woke(tick(first, first_env, PAST_GRACE - timedelta(hours=1))) == [("started", "drafted")]
    before = git("--git-dir", str(bare), "rev-parse", f"refs/hz/lease/{LEASE}").strip()

    clone, environ = actions(tmp_path, bare, 123)
    checked_out = objects(clone)
    assert woke(tick(clone, environ, PAST_GRACE)) == [("started", "drafted")]
    assert sorted(e["key"] for e in finished(bare)) == [KEY.replace("T11:", "T10:"), KEY]
    # the due contract's lease was read before it was taken again (the new term builds on the first run's) ...
    chain = git("--git-dir", str(bare), "rev-list", f"refs/hz/lease/{LEASE}").split()
    assert before in chain[1:], chain
    # ... and the quiet ones' leases were never fetched: not as refs, not as objects
    assert lease_copies(clone) == [f"refs/hz/lease/{LEASE}"]
    tips = [git("--git-dir", str(bare), "rev-parse", ref).strip() for ref in quiet]
    present = subprocess.run(["git", "cat-file", "--batch-check"], cwd=clone, input="\n".join(tips) + "\n",
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert present.split("\n")[:QUIET] == [f"{tip} missing" for tip in tips]
    fetched = objects(clone) - checked_out
    assert fetched < 60, fetched
