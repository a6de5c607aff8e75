"""The state-lint workflow fetches what its lint reads, whatever the age of `hz/state` (issue 22).

The remote's `hz/state` holds a long history that the tip no longer holds (a step emptied `events/`, as an
archive step moves closed work out of the tip) and a lease chain of as many acquisitions; then one push. The
generated workflow runs as GitHub runs it (tests.turn.team_harness.state_lint_run: actions/checkout of the
default branch, then its `run:` steps as written): a push's run fetches the pushed commits and what they are
judged against, a scheduled run the last day's commits, a manual run everything. Counted in objects and in
what the lint says it read.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2

from hz.gitstate import objects
from hz.gitstate.events import Event, path_of
from hz.gitstate.layout import LEASE_FILE, lease_ref
from hz.gitstate.lease_record import LeaseRecord
from hz.gitstate.times import format_utc
from tests.gitstate.factory import git, hz_id, placed
from tests.turn.team_harness import state_lint_run

HISTORY = 150  # old commits on hz/state (10 events each) and old acquisitions of AGENT's lease
AGENT, OLD = hz_id(5), hz_id(7)
Done = subprocess.CompletedProcess[str]
LONG_AGO = datetime.now(UTC).replace(microsecond=0) - timedelta(days=30)


def commit(repo: pygit2.Repository, ref: str, files: dict[str, bytes], when: datetime, *, empty: bool = False) -> str:
    """One commit on `ref` adding `files` (`empty`: on an empty tree instead of its parent's)."""
    parent = objects.resolve(repo, ref)
    base = repo[parent].peel(pygit2.Tree).id if parent is not None and not empty else None
    message = f"hz-state: {len(files)} event{'' if len(files) == 1 else 's'}\n"
    made = objects.make_commit(repo, objects.write_tree(repo, base, files), [parent] if parent else [], message, when)
    objects.set_ref(repo, ref, made)
    return made


def grant(token: int, when: datetime) -> bytes:
    stamp, until = format_utc(when), format_utc(when + timedelta(minutes=10))
    record = LeaseRecord(lease=AGENT, holder="@ann/m-00000001", role="owner", token=token, slot=stamp,
                         acquired=stamp, expires=until, state="released")  # fmt: skip
    return record.line()


def remote(tmp_path: Path, history: int = HISTORY) -> Path:
    """The bare remote: main, a long hz/state history whose tip holds nothing of it, a long lease chain."""
    bare = tmp_path / "team.git"
    git("init", "-q", "--bare", str(bare))
    seed = tmp_path / "seed"
    git("init", "-q", str(seed))
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    git("add", "hz.toml", cwd=seed)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "team", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    repo = pygit2.Repository(str(bare))
    for n in range(history):
        events = [placed(OLD, n * 10 + i, 1) for i in range(10)]
        commit(repo, "refs/heads/hz/state", {path_of(e): e.line() for e in events}, LONG_AGO + timedelta(hours=n))
        commit(repo, lease_ref(AGENT), {LEASE_FILE: grant(n + 1, LONG_AGO + timedelta(hours=n))}, LONG_AGO)
    commit(repo, "refs/heads/hz/state", {}, LONG_AGO + timedelta(days=8), empty=True)  # the old work moved out
    return bare


def push(bare: Path, event: Event, history: int = HISTORY) -> str:
    """A member's push of one event under a token the chain just gave: the tip before it."""
    repo = pygit2.Repository(str(bare))
    now = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=5)
    commit(repo, lease_ref(AGENT), {LEASE_FILE: grant(history + 1, now)}, now)
    before = str(objects.resolve(repo, "refs/heads/hz/state"))
    commit(repo, "refs/heads/hz/state", {path_of(event): event.line()}, now)
    return before


def run(tmp_path: Path, bare: Path, name: str, event: str, before: str = "") -> tuple[Done, Path]:
    """One run of the workflow for `event` in a new folder `name`, with the `hz` of this environment."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    environ = {**os.environ, "HZ_HOME": str(tmp_path / name / "hz"), "PATH": path}
    clone = tmp_path / name / "repo"
    return state_lint_run(f"file://{bare}", clone, environ, event, before), clone


def counted(clone: Path) -> tuple[int, int]:
    """(objects in the clone, commits of AGENT's lease chain it holds)."""
    numbers = dict(line.split(": ") for line in git("count-objects", "-v", cwd=clone).splitlines())
    chain = git("rev-list", "--count", lease_ref(AGENT), cwd=clone).strip()
    return int(numbers["count"]) + int(numbers["in-pack"]), int(chain)


def test_each_run_fetches_what_its_lint_reads_and_lints_what_is_new(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    before = push(bare, placed(AGENT, 1, HISTORY + 1))

    done, clone = run(tmp_path, bare, "push", "push", before)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "hz/state: clean\n", f"hz state lint: 1 commit, 1 event since {before[:12]}\n")  # fmt: skip
    fetched, chain = counted(clone)
    assert fetched < 40 and chain <= 2, (fetched, chain)  # of ~1,950 objects, 151 lease commits on the remote

    done, clone = run(tmp_path, bare, "schedule", "schedule")  # the last day: the push, judged against its parent
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "hz/state: clean\n", f"hz state lint: 1 commit, 1 event since {before[:12]}\n")  # fmt: skip
    fetched, chain = counted(clone)
    assert fetched < 40 and chain <= 2, (fetched, chain)

    # a person asks for the whole branch: it reads all of it, the step that emptied the tip included (no archive
    # step hz would write: a whole lint calls its deletions what they are, which no range lint here reads)
    done, clone = run(tmp_path, bare, "manual", "workflow_dispatch")
    assert (done.returncode, done.stderr, done.stdout.count("HZS003")) == (1, "", 10 * HISTORY), done.stdout[-500:]
    fetched, chain = counted(clone)
    assert fetched > 1900 and chain == HISTORY + 1, (fetched, chain)


def test_a_token_the_lease_never_gave_is_still_refused_in_a_push_run(tmp_path: Path) -> None:
    bare = remote(tmp_path, 5)
    before = push(bare, placed(AGENT, 1, 9), 5)  # the chain's newest token is 6
    done, _ = run(tmp_path, bare, "push", "push", before)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == f"hz state lint: 1 commit, 1 event since {before[:12]}\n"
    assert f"token 9 was never given by lease {AGENT}" in done.stdout, done.stdout
