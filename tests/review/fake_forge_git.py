"""Git plumbing for the fake forge: what GitHub does to the repository when a pull request is merged or
a reviewer edits a file in the browser, done on a real bare repository with no work tree."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

GITHUB = ("GitHub", "noreply@github.com")  # GitHub's committer on web merges and web edits


class Conflict(Exception):
    """The merge or the replayed commit does not apply cleanly."""


def user(login: str) -> tuple[str, str]:
    """How GitHub writes a user as a commit author when the address is kept private."""
    return (login, f"{login}@users.noreply.github.com")


def git(
    bare: Path, *args: str, env: Mapping[str, str] | None = None, stdin: str | None = None, ok: tuple[int, ...] = (0,)
) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(bare), *args],
        input=stdin, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False,
    )  # fmt: skip
    if done.returncode not in ok:
        raise RuntimeError(f"git {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def rev(bare: Path, branch: str) -> str | None:
    out = git(bare, "rev-parse", "-q", "--verify", f"refs/heads/{branch}^{{commit}}", ok=(0, 1)).strip()
    return out or None


def commits(bare: Path, base: str, head: str) -> list[str]:
    """The commits of `head` not on `base`, oldest first (as GitHub lists a pull request's commits)."""
    return git(bare, "rev-list", "--reverse", "--topo-order", f"{base}..{head}").split()


def message(bare: Path, sha: str) -> tuple[str, str]:
    """The subject and the body (everything after the first blank line) of commit `sha`."""
    text = git(bare, "show", "-s", "--format=%B", sha).rstrip("\n")
    subject, _, body = text.partition("\n\n")
    return subject.strip(), body.strip("\n")


def author_line(bare: Path, sha: str) -> str:
    """`Name <email>` of the author of `sha`."""
    return git(bare, "show", "-s", "--format=%an <%ae>", sha).strip()


def author_of(bare: Path, sha: str) -> dict[str, str]:
    name, email, date = (
        git(bare, "show", "-s", "--format=%an%x00%ae%x00%ad", "--date=raw", sha).rstrip("\n").split("\0")
    )
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": date}


def merged_tree(bare: Path, ours: str, theirs: str) -> str:
    """The tree of merging `theirs` into `ours` (`git merge-tree --write-tree`); Conflict when it conflicts."""
    done = subprocess.run(
        ["git", "--git-dir", str(bare), "merge-tree", "--write-tree", ours, theirs],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode == 1:
        raise Conflict(f"merging {theirs[:12]} into {ours[:12]} conflicts")
    if done.returncode != 0:
        raise RuntimeError(f"git merge-tree failed: {done.stderr.strip()}")
    return done.stdout.split("\n", 1)[0].strip()


def replayed_tree(bare: Path, onto: str, commit: str) -> str:
    """The tree of `onto` with the change `commit` made to its first parent applied (a cherry-pick)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(bare, "read-tree", onto, env=env)
        patch = git(bare, "diff-tree", "-p", "--binary", "--full-index", "--root", commit)
        if patch.strip():
            done = subprocess.run(
                ["git", "--git-dir", str(bare), "apply", "--cached", "--3way"],
                input=patch, capture_output=True, text=True, env={**os.environ, **env}, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise Conflict(f"{commit[:12]} does not apply onto {onto[:12]}: {done.stderr.strip()}")
        return git(bare, "write-tree", env=env).strip()


def changed_tree(bare: Path, base: str, path: str, text: str) -> str:
    """The tree of commit `base` with the file `path` holding `text`."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(bare, "read-tree", base, env=env)
        blob = git(bare, "hash-object", "-w", "--stdin", stdin=text).strip()
        git(bare, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        return git(bare, "write-tree", env=env).strip()


def commit(bare: Path, tree: str, parents: list[str], text: str, *, author: Mapping[str, str] | tuple[str, str]) -> str:
    """A commit with GitHub as committer; `author` is (name, email) or the GIT_AUTHOR_* of a replayed commit."""
    who = author if isinstance(author, Mapping) else {"GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1]}
    env = {**who, "GIT_COMMITTER_NAME": GITHUB[0], "GIT_COMMITTER_EMAIL": GITHUB[1]}
    args = [arg for parent in parents for arg in ("-p", parent)]
    return git(bare, "commit-tree", tree, *args, env=env, stdin=text).strip()


def move(bare: Path, branch: str, new: str, old: str) -> None:
    """Move `branch` from `old` to `new`, refused if it moved meanwhile (as a ref update on the server)."""
    git(bare, "update-ref", f"refs/heads/{branch}", new, old)


def put(bare: Path, branch: str, files: Mapping[str, str], text: str, *, start: str | None = None) -> str:
    """Commit `files` onto `branch` (created from `start`, or a root commit) with the message `text`:
    for tests that need a main and a draft branch without a clone."""
    parent = rev(bare, branch) or (rev(bare, start) if start else None)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if parent:
            git(bare, "read-tree", parent, env=env)
        for path, content in files.items():
            blob = git(bare, "hash-object", "-w", "--stdin", stdin=content).strip()
            git(bare, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = git(bare, "write-tree", env=env).strip()
    sha = commit(bare, tree, [parent] if parent else [], text.rstrip("\n") + "\n", author=("hz", "hz"))
    git(bare, "update-ref", f"refs/heads/{branch}", sha, rev(bare, branch) or "0" * 40)
    return sha
