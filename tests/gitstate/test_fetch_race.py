"""Two hz processes of one clone fetching the same refs at once (issue 24, point 9): git refuses the one
that finds the other's ref lock. hz tries that fetch once more, and says "busy" (exit 0) if it is refused
again, instead of failing with git's "cannot lock ref"."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from hz.gitstate.transport import BUSY, Git, RefsBusy
from hz.tick.daemon import _busy
from tests.gitstate.factory import git, new_clone

SYNC = "refs/hz/sync/team/heads/main"


def _remote_with_main(tmp_path: Path, bare: Path) -> Path:
    scratch = new_clone(tmp_path / "scratch")
    git("-C", str(scratch), "commit", "-q", "--allow-empty", "-m", "main")
    git("-C", str(scratch), "push", "-q", str(bare), "HEAD:refs/heads/main")
    return new_clone(tmp_path / "clone")


def test_a_fetch_that_meets_another_fetchs_ref_lock_is_tried_once_more_and_lands(tmp_path: Path, bare: Path) -> None:
    clone = _remote_with_main(tmp_path, bare)
    lock = clone / ".git" / f"{SYNC}.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")  # the other process is updating the same ref right now
    threading.Timer(0.2, lock.unlink).start()  # ... and is done a moment later
    Git(clone).fetch(str(bare), [f"+refs/heads/main:{SYNC}"])
    assert git("-C", str(clone), "rev-parse", SYNC).strip() == git("--git-dir", str(bare), "rev-parse", "main").strip()


def test_a_lock_held_through_the_second_try_is_busy_and_a_tick_says_so_without_an_error(
    tmp_path: Path, bare: Path
) -> None:
    clone = _remote_with_main(tmp_path, bare)
    lock = clone / ".git" / f"{SYNC}.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    with pytest.raises(RefsBusy) as busy:
        Git(clone).fetch(str(bare), [f"+refs/heads/main:{SYNC}"])
    assert busy.value.render() == f"error: {BUSY}\n  hint: run it again in a moment; nothing was lost"
    assert _busy([BUSY]) == (["hz/state"], [])  # the tick: "hz/state: busy in another process", exit 0
    assert _busy(["git fetch failed: no such remote"]) == ([], ["git fetch failed: no such remote"])
