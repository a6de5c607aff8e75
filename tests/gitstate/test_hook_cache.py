"""The hook keeps what it read of `main` (hz.gitstate.main_cache) and reads objects through git (hz.gitstate.catfile).

Real pushes to a bare remote guarded by the installed hook: a push under the same `main` as the last one
reads no contract (no pygit2, no YAML parser), one after `main` moved reads it again, and a damaged file
is a miss. The object reader asks git for refs by their exact names and diffs trees as git does.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from hz.gitstate.catfile import CatFile
from hz.gitstate.events import ApprovalObserved, Event, path_of
from hz.gitstate.main_cache import FILE, FOLDER
from tests.gitstate import plumbing
from tests.gitstate.factory import git, new_clone, sha
from tests.gitstate.test_attack_state import AGENT, GOOD_DRAFT, SLOT, Team, findings, team

__all__ = ["team"]

APPROVED = Event.make("approval.observed", id=AGENT, key=GOOD_DRAFT.key, ts=SLOT, lease=AGENT, token=1,
                      data=ApprovalObserved(key=GOOD_DRAFT.key, asset=GOOD_DRAFT.data["asset"], approver="@rita",
                                            share_changed=0.25, output_fp=sha("o")))  # fmt: skip


def push_events(
    team: Team, parent: str, *events: Event, profile: bool = False
) -> tuple[str, subprocess.CompletedProcess[str]]:
    files = {**team.files, **{path_of(e): e.line() for e in events}}
    for event in events:
        team.files[path_of(event)] = event.line()
    count = f"{len(events)} event{'s' * (len(events) != 1)}"
    tip = plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (parent,),  # type: ignore[arg-type]
                          f"hz-state: {count}\n".encode())  # fmt: skip
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"} if profile else None
    command = ["git", "-C", str(team.clone), "push", "--porcelain", str(team.remote), f"{tip}:refs/heads/hz/state"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    return tip, done


def imported(stderr: str) -> list[str]:
    return [line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "import time:" in line]


def test_a_push_under_the_same_main_reads_no_contract_and_imports_neither_pygit2_nor_yaml(team: Team) -> None:
    first, done = push_events(team, team.base, GOOD_DRAFT)
    assert done.returncode == 0, done.stderr
    kept = team.remote / FOLDER / FILE
    assert (kept.parent.stat().st_mode & 0o777, kept.stat().st_mode & 0o777) == (0o700, 0o600)
    main = git("--git-dir", str(team.remote), "rev-parse", "refs/heads/main").strip()
    assert json.loads(kept.read_text())["main"] == f"refs/heads/main {main}"
    _, done = push_events(team, first, APPROVED, profile=True)
    assert done.returncode == 0, done.stderr
    names = imported(done.stderr)
    assert "hz.gitstate.receipts" in names and "hz.gitstate.main_cache" in names  # it judged the approval
    heavy = sorted({n for n in names if n.split(".")[0] in ("pygit2", "ruamel", "pydantic", "pydantic_core", "click")})
    assert heavy == []


def test_a_push_after_main_moved_is_judged_by_the_new_main(team: Team) -> None:
    first, done = push_events(team, team.base, GOOD_DRAFT)
    assert done.returncode == 0, done.stderr
    empty = plumbing.commit(team.clone, plumbing.tree(team.clone, {b"README.md": b"no contracts\n"}), (),
                            b"retire the weekly contract\n", author=b"Ann <ann> 1761836400 +0000")  # fmt: skip
    moved = plumbing.push(team.clone, team.remote, f"+{empty}:refs/heads/main")
    assert moved.returncode == 0, moved.stderr
    _, done = push_events(team, first, APPROVED)
    assert done.returncode == 1
    assert ("HZS019", f"no contract on main has the id {AGENT.removeprefix('hz-')}") in findings(
        [line.removeprefix("remote: ") for line in done.stderr.splitlines()]
    )


def test_a_damaged_kept_file_is_read_as_a_miss_and_written_anew(team: Team) -> None:
    main = git("--git-dir", str(team.remote), "rev-parse", "refs/heads/main").strip()
    kept = team.remote / FOLDER / FILE
    kept.parent.mkdir(mode=0o700)
    kept.write_text(json.dumps({"format": 1, "hz": "0.1.0", "main": f"refs/heads/main {main}", "declared": 5}))
    _, done = push_events(team, team.base, GOOD_DRAFT)
    assert done.returncode == 0, done.stderr
    assert AGENT in json.loads(kept.read_text())["declared"]


def test_a_place_the_hook_cannot_keep_main_in_refuses_nothing(team: Team) -> None:
    (team.remote / FOLDER).write_text("a file where the folder belongs\n")
    first, done = push_events(team, team.base, GOOD_DRAFT)
    assert done.returncode == 0, done.stderr
    _, done = push_events(team, first, APPROVED)
    assert done.returncode == 0, done.stderr


def test_refs_are_read_by_their_exact_names_never_guessed(team: Team) -> None:
    """`refs/hz/lease/<id>` that does not exist must not resolve to a branch spelled `refs/heads/refs/hz/lease/<id>`."""
    other = AGENT[:-1] + "9"
    lease = git("--git-dir", str(team.remote), "rev-parse", f"refs/hz/lease/{AGENT}").strip()
    git("--git-dir", str(team.remote), "update-ref", f"refs/heads/refs/hz/lease/{other}", lease)
    with CatFile(team.remote, os.environ) as objects:
        assert objects.resolve(f"refs/hz/lease/{other}") is None
        assert objects.resolve(f"refs/heads/refs/hz/lease/{other}") == lease
        assert objects.read(f"refs/heads/refs/hz/lease/{other}") == ("missing", b"")  # ids only
        assert objects.kind(lease) == "commit"


def test_the_diff_of_two_trees_is_the_one_git_shows(tmp_path: Path) -> None:
    """Added, deleted and changed files, a file that becomes a folder and a folder a file, in git's order."""
    clone = new_clone(tmp_path / "clone")
    before = plumbing.tree(
        clone, {b"a": b"1\n", b"b": {b"x": b"2\n"}, b"b.c": b"3\n", b"d": b"4\n", b"e": {b"f": b"5\n"}}
    )
    after = plumbing.tree(
        clone, {b"a": {b"z": b"1\n"}, b"b": {b"x": b"22\n", b"y": b"6\n"}, b"b.c": b"3\n", b"e": b"7\n"}
    )
    with CatFile(clone / ".git", os.environ) as objects:
        ours = [(change.status, change.path) for change in objects.diff(before, after)]
    shown = git("-C", str(clone), "diff-tree", "-r", "--no-renames", "--name-status", before, after)
    assert ours == [tuple(line.split("\t")) for line in shown.splitlines()]
