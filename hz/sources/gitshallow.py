"""A shallow clone's history, as far as a `git:` window needs it: found short, deepened, or reported.

A shallow clone (`git clone --depth 1`, the CI default) ends at boundary commits whose parents were
never fetched; git shows them parentless, so a walk ends there as if history began. The boundary commits
are the ones the clone's `shallow` file lists; reading it costs one file open, no git process, and a
full clone has none.

When the window reaches a boundary, the repository hz runs in is deepened from its remote, asking for
the walked tip by id (so no branch or remote-tracking ref moves): first everything since the window's
start (`--shallow-since`), then one more commit (`--deepen=1`), so the new boundary lies before the
window and the next walk of a later window needs no fetch. Without a start the history is fetched
whole (`--unshallow`). Anything else (another repository named by `git:<path>`, no remote, a failed
fetch) leaves the history as it is, and the walk reports the window as truncated at its boundary.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from hz.gitenv import git_env

FETCH_TIMEOUT_S = 120.0  # a year of a large project fits; a stuck remote must not hold every tick longer
NO_REMOTE = "no remote to deepen it from"
NOT_OURS = "another repository (git:<path>): hz fetches only into the repository it runs in"
FETCH_FAILED = "deepening it from the remote failed"
STILL_SHORT = "the remote's history ends there too"
HINT = "fetch more history (git fetch --shallow-since=<date>, or clone with fetch-depth: 0)"


def boundary_ids(repo: Any) -> frozenset[str]:
    """The boundary commits of a shallow clone, from its `shallow` file (empty for a whole clone).

    Read from the repository the clone's worktrees share: libgit2 looks for the file only beside the
    folder it opened, so for a linked worktree (`git worktree add`) it calls the clone whole."""
    folder = Path(repo.path)
    common = folder / "commondir"
    if common.is_file():
        try:
            folder = folder / common.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return frozenset()
    try:
        text = (folder / "shallow").read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return frozenset()
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def remote_of(repo: Any) -> str | None:
    """The remote a clone came from: `origin`, or the only remote there is."""
    names = list(repo.remotes.names())
    if "origin" in names:
        return "origin"
    return names[0] if len(names) == 1 else None


def deepen(workdir: Path, remote: str, tip: str, since: datetime | None, environ: Mapping[str, str]) -> bool:
    """Fetch the history of `tip` from `remote` back past `since` (all of it when None); True when git did."""
    if since is None:
        return _fetch(workdir, remote, tip, "--unshallow", environ)
    stamp = since.strftime("%Y-%m-%d %H:%M:%S +0000")
    if not _fetch(workdir, remote, tip, f"--shallow-since={stamp}", environ):
        return False
    import pygit2

    repo = pygit2.Repository(str(workdir))
    try:
        if not repo.is_shallow:
            return True  # the window reached the root: the clone is whole now
    finally:
        repo.free()
    return _fetch(workdir, remote, tip, "--deepen=1", environ)


def _fetch(workdir: Path, remote: str, tip: str, how: str, environ: Mapping[str, str]) -> bool:
    # `how` and `tip` are made here (an option and an object id), the remote is a name from the
    # clone's own configuration: nothing from a contract or a commit reaches git, and `--` ends options.
    args = ["git", "-C", str(workdir), "-c", "maintenance.auto=false", "fetch", "--quiet", "--no-tags"]
    args += ["--no-write-fetch-head", "--no-recurse-submodules", how, "--", remote, tip]
    try:
        done = subprocess.run(
            args,
            env=git_env(environ, LC_ALL="C"),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=FETCH_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
