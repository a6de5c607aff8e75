"""Helpers for source tests: git repositories with commits at chosen times, and resolving one source."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path

from hz.sources.base import SourceSpec
from hz.sources.cache import SourceCache
from hz.sources.resolve import Resolved, resolve
from tests.sources.conftest import NOW


def git(repo: Path, *args: str, when: datetime | None = None, author: str | None = None) -> str:
    env = dict(os.environ)
    if when is not None:
        stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = stamp
    if author is not None:
        name, _, email = author.partition(" <")
        env["GIT_AUTHOR_NAME"] = name
        env["GIT_AUTHOR_EMAIL"] = email.rstrip(">")
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(repo: Path, path: str, text: str, when: datetime, message: str, author: str | None = None) -> str:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message, when=when, author=author)
    return git(repo, "rev-parse", "HEAD")


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


def days_ago(n: float) -> datetime:
    return NOW - timedelta(days=n)


def fetch(
    uri: str,
    cache: SourceCache,
    *,
    root: Path | None = None,
    environ: Mapping[str, str] | None = None,
    now: datetime = NOW,
    slot: datetime | None = None,
    force: bool = False,
    **spec: object,
) -> Resolved:
    return resolve(
        SourceSpec(uri, **spec),  # type: ignore[arg-type]
        cache,
        slot=slot or now,
        now=now,
        environ=environ if environ is not None else dict(os.environ),
        root=root,
        force=force,
    )


def commit_name(repo: Path, name: bytes, data: bytes, when: datetime, message: str) -> str:
    """Commit a file whose name is raw bytes (a Latin-1 name, say), through plumbing as git stores it."""
    env = dict(os.environ, GIT_AUTHOR_DATE=f"@{int(when.timestamp())} +0000", GIT_COMMITTER_DATE="")
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    blob = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=data, capture_output=True)
    info = b"100644," + blob.stdout.strip() + b"," + name
    subprocess.run([b"git", b"-C", os.fsencode(repo), b"update-index", b"--add", b"--cacheinfo", info], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], env=env, check=True)
    return git(repo, "rev-parse", "HEAD")


def spread_history(repo: Path, count: int, newest: datetime, every: timedelta) -> None:
    """`count` commits on `main`, one every `every` back from `newest`, each changing a file: one fast-import."""
    lines: list[str] = []
    for n in range(count):
        when = int((newest - every * (count - 1 - n)).timestamp())
        body = f"change {n}\n"
        lines += [
            "commit refs/heads/main",
            f"committer hz test <hz-test@example.invalid> {when} +0000",
            f"data {len(f'Change {n}')}",
            f"Change {n}",
            f"M 644 inline notes/n{n % 7}.md",
            f"data {len(body)}",
            body.rstrip("\n"),
            "",
        ]
    stream = "\n".join(lines) + "\n"
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=stream.encode(), check=True)
    git(repo, "reset", "-q", "--hard", "main")
