"""The team's `main` as the tick fetched it, read where hz keeps it.

With `[state]` in `hz.toml`, approved truth is the remote's `main`, not the member's checkout: a merge
on the forge counts at the next tick, with no `git pull`. The tick fetches the remote's `main` into hz's
own namespace (`refs/hz/sync/<remote>/heads/main`, `hz.gitstate.remote.TeamRemote.tracking`), never
moving the member's branches (`hz.review.sync`, the tick's one fetch, whose `fetched_main` gives the
ref to pygit2 readers); `contract:` inputs and the adoption of team contract versions read it here.

Plain `git` processes and no pygit2 here: the adoption step runs on every tick, and an idle tick must
stay light (tests/turn/test_idle.py).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from hz.gitenv import git_env


def fetched_main(root: Path, environ: Mapping[str, str]) -> str | None:
    """The commit of the remote's `main` (else `master`) that the last fetch brought, None when none did
    (or the repository keeps no team state)."""
    if not (root / "hz.toml").is_file():  # checked first: an idle tick without one loads no TOML parser
        return None
    from hz.review.sync import MAIN_REFS, team_remote

    remote = team_remote(root, environ)
    if remote is None:
        return None
    return next((commit for ref in MAIN_REFS if (commit := _rev(root, remote.tracking(ref)))), None)


def _rev(root: Path, ref: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "-q", "--verify", "--end-of-options", f"{ref}^{{commit}}"],
        capture_output=True, env=git_env(), check=False,
    )  # fmt: skip
    return done.stdout.decode().strip() if done.returncode == 0 else None
