"""The team's `main` as the tick fetched it, read where hz keeps it.

With `[state]` in `hz.toml`, approved truth is the remote's `main`, not the member's checkout: a merge
on the forge counts at the next tick, with no `git pull`. The tick fetches the remote's `main` into hz's
own namespace (`refs/hz/sync/<remote>/heads/main`, `hz.gitstate.remote.TeamRemote.tracking`), never
moving the member's branches (`hz.review.sync`, the tick's one fetch); `contract:` inputs and the
adoption of team contract versions read it there.

Plain `git` processes and no pygit2 here: the adoption step runs on every tick, and an idle tick must
stay light (tests/turn/test_idle.py).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from hz.errors import HzError
from hz.gitenv import git_env

if TYPE_CHECKING:
    from hz.gitstate.remote import TeamRemote

BRANCHES = ("refs/heads/main", "refs/heads/master")


def team_remote(root: Path, environ: Mapping[str, str]) -> TeamRemote | None:
    """The team remote of the repository's `[state]`, None without one (or with a broken `hz.toml`)."""
    if not (root / "hz.toml").is_file():  # checked first: an idle tick without one loads no TOML parser
        return None
    from hz.gitstate.settings import load_state_settings, read_hz_toml

    try:
        document = read_hz_toml(root)
        if document is None or "state" not in document:
            return None
        from hz.gitstate.remote import TeamRemote

        return TeamRemote(root, load_state_settings(root).remote, environ)
    except HzError:  # a bad [state] is the tick's error to report (hz.tick.team.Team.open), not a reader's
        return None


def fetched_main(root: Path, environ: Mapping[str, str]) -> str | None:
    """The commit of the remote's `main` (else `master`) that the last fetch brought, None when none did."""
    remote = team_remote(root, environ)
    if remote is None:
        return None
    for branch in BRANCHES:
        commit = _rev(root, remote.tracking(branch))
        if commit is not None:
            return commit
    return None


def _rev(root: Path, ref: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "-q", "--verify", "--end-of-options", f"{ref}^{{commit}}"],
        capture_output=True, env=git_env(), check=False,
    )  # fmt: skip
    return done.stdout.decode().strip() if done.returncode == 0 else None
