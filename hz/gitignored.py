"""Which files of a repository git ignores there: the member's local files (`.env`, build output).

A file git ignores is not the team's: it is a secret (`.env`, a key file), a build artefact or a scratch
file of one machine. hz never lets a glob or a model's tool call sweep one up: the files a glob names
and the files `hz:file.text.read` is asked for are checked against git's own ignore rules (the
repository's `.gitignore` files, `.git/info/exclude`, the member's global excludes). A tracked file is
never ignored, whatever the patterns say. A path a reviewed contract names on its own is its author's
choice and is read.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

from hz.gitenv import git_env

TIMEOUT_S = 20.0


def ignored(root: Path, paths: Iterable[str]) -> frozenset[str]:
    """The paths (relative to the repository root `root`) that git ignores there.

    Outside a git repository nothing is ignored, as there are no ignore rules to apply. When git cannot
    answer for the index (a path inside a submodule makes it give up on all of them), it is asked again
    without the index, which counts a tracked file that matches a pattern as ignored too: more skipped,
    never fewer. When that fails as well, every path counts as ignored (fail closed).
    """
    wanted = list(paths)
    if not wanted:
        return frozenset()
    listed = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in wanted)
    for extra in ((), ("--no-index",)):
        done = _check_ignore(root, listed, *extra)
        if done.returncode in (0, 1):  # 1: none is ignored
            return frozenset(p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p)
        if b"not a git repository" in done.stderr:
            return frozenset()
    return frozenset(wanted)


def _check_ignore(root: Path, listed: bytes, *extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-C", str(root), "check-ignore", *extra, "-z", "--stdin"],
        input=listed,
        capture_output=True,
        env=git_env(LC_ALL="C"),  # the one message we look for, in one language
        timeout=TIMEOUT_S,
        check=False,
    )
