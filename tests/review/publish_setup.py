"""A team repository for publish tests: a real bare remote whose main holds a README, and a clone of it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hz.gitstate.events import PublishDone
from hz.review.publish import Publish, PublishContext, PublishForge
from tests.review.publish_child import Spec

DRAFT = "hz-01JD0000000000000000000000@v1@2026-12-01T02:00Z@state:reports/w48.md"
TEXT = "## Summary\n\nAll green this week.\n"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}


def git(*args: str, cwd: Path | None = None) -> str:
    import os

    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env={**os.environ, **ENV})  # fmt: skip
    return done.stdout.strip()


def team_repo(tmp: Path) -> tuple[Path, Path]:
    """(bare remote, clone): main has README.md and reports/w48.md (the approved draft, merged)."""
    bare, clone = tmp / "team.git", tmp / "clone"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    git("clone", "-q", str(bare), str(clone))
    (clone / "README.md").write_text("team\n")
    (clone / "reports").mkdir()
    (clone / "reports" / "w48.md").write_text(TEXT)
    git("add", "README.md", "reports/w48.md", cwd=clone)
    git("commit", "-q", "-m", "start", cwd=clone)
    git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=clone)
    return bare, clone


def branches(bare: Path, prefix: str = "refs/heads/hz/publish/") -> dict[str, str]:
    out = git("--git-dir", str(bare), "for-each-ref", "--format=%(refname) %(objectname)", prefix)
    return dict(line.split(" ", 1) for line in out.splitlines())


def context(
    clone: Path,
    publishes: list[Spec],
    recorded: list[PublishDone],
    *,
    forge: PublishForge | None = None,
    done: frozenset[str] = frozenset(),
    text: str = TEXT,
) -> PublishContext:
    specs: list[Publish] = list(publishes)
    return PublishContext(clone, DRAFT, "report", text, specs, recorded.append, title="weekly report", forge=forge,
                          environ={}, done=done)  # fmt: skip
