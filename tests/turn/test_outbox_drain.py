"""Receipts never wait for work: any tick with something in the outbox pushes it, an idle one too.

A weekly contract's receipts that missed their push (the remote was gone for a moment) used to wait
for the next team turn, a week, while delegates considered the slot undone. Now the next tick pushes
them, even with nothing due, and the draft branch of that turn with them; and an idle tick whose outbox
is empty starts no git process but the one fetch of the tick.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from hz.gitstate.events import path_of
from hz.gitstate.outbox import Outbox, waiting_under
from hz.runners.base import ThinkRequest, ThinkResult
from hz.runners.offline import OfflineRunner
from hz.tick.daemon import tick
from tests.turn.team_harness import bare_remote, push_main
from tests.turn.test_team import MONDAY, TEAM, git, member
from tests.turn.test_team_drafts import _drafts


def guarded_team_repo(tmp_path: Path) -> Path:
    """The team's bare remote with hz's pre-receive hook, `hz.toml` and the team contract on main."""
    bare = bare_remote(tmp_path)
    hooked = subprocess.run([sys.executable, "-m", "hz", "state", "install-hook", str(bare)],
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert hooked.returncode == 0, hooked.stderr
    roster = '[team.members]\n"@priya" = ["hz-test@example.invalid"]\n'  # the pinned git identity merges
    push_main(
        tmp_path, bare, {"hz.toml": f'[state]\nremote = "{bare}"\n{roster}', "workflows/team-note.prose.md": TEAM}
    )
    return bare


class RemoteGoneWhileThinking:
    """The offline model, during whose think the team's remote becomes unreachable (renamed away)."""

    name = "offline"

    def __init__(self, bare: Path) -> None:
        self.bare = bare

    def worst_case_usd(self, max_tokens: int) -> float:
        return 0.0

    def think(self, request: ThinkRequest) -> ThinkResult:
        self.bare.rename(self.bare.with_name("away.git"))
        return OfflineRunner().think(request)


def on_state(bare: Path) -> list[str]:
    listed = subprocess.run(["git", "--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state"],
                            capture_output=True, text=True, check=False)  # fmt: skip
    return listed.stdout.splitlines()


def entries(report: Any) -> list[tuple[str, str | None]]:
    return [(e["action"], e.get("disposition")) for e in report.woken]


def test_receipts_of_a_failed_push_go_out_with_the_next_idle_tick(tmp_path: Path) -> None:
    bare = guarded_team_repo(tmp_path)
    clone, environ = member(tmp_path, "priya", bare)
    outboxes = Path(environ["HZ_HOME"]) / "gitstate"

    ran = tick(root=clone, environ=environ, now=MONDAY, runner=RemoteGoneWhileThinking(bare))
    assert entries(ran)[0] == ("started", "drafted")
    assert [e["action"] for e in ran.woken[1:]] == ["error"]  # the push found no remote
    assert ran.pushed is False
    assert waiting_under(outboxes)  # the turn's receipts are kept for a later push
    (outbox,) = (key / "outbox" for key in outboxes.iterdir())
    queued = Outbox(outbox).events()
    assert [e.kind for e in queued] == ["turn.started", "draft.placed", "turn.finished"]
    kept = sorted(path_of(e) for e in queued)

    bare.with_name("away.git").rename(bare)  # the remote is back; the contract is next due on Friday
    assert on_state(bare) == [] and _drafts(bare) == {}
    drained = tick(root=clone, environ=environ, now=MONDAY + timedelta(minutes=5))
    assert (drained.woken, drained.pushed) == ([], True)  # no turn, one push
    assert sorted(on_state(bare)) == kept
    assert _drafts(bare) == _drafts(clone / ".git")  # the draft branch rode along, as it would have
    assert len(_drafts(bare)) == 1
    assert not waiting_under(outboxes)

    again = tick(root=clone, environ=environ, now=MONDAY + timedelta(minutes=10))
    assert (again.woken, again.pushed) == ([], False)  # nothing waits: no push at all


def test_an_idle_tick_with_an_empty_outbox_starts_no_git_process_but_the_fetch(tmp_path: Path) -> None:
    bare = guarded_team_repo(tmp_path)
    clone, environ = member(tmp_path, "priya", bare)
    first = tick(root=clone, environ=environ, now=MONDAY)
    assert (entries(first), first.pushed) == ([("started", "drafted")], True)
    draft = git("branch", "--list", "hz/draft/*", "--format=%(refname:short)", cwd=clone)
    git("merge", "-q", "--no-ff", "-m", "Approve", draft, cwd=clone)  # approved on main: no draft left to look at
    git("push", "-q", "origin", "HEAD:main", cwd=clone)
    approved = tick(root=clone, environ=environ, now=MONDAY + timedelta(minutes=5))
    assert entries(approved) == [("approved", None)]  # recorded by this tick's approval look (no lease, no turn)

    # Under [state] every tick fetches once (a merge on the forge is an approval to notice) and lists the
    # refs it brought with this clone's draft branches, nothing else: the only git on PATH is a shim that
    # writes down each call before it runs the real git.
    shim, calls = tmp_path / "shim", tmp_path / "git-calls"
    shim.mkdir()
    real = shutil.which("git")
    assert real is not None
    (shim / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{calls}"\nexec "{real}" "$@"\n')
    (shim / "git").chmod(0o755)
    idle = subprocess.run([sys.executable, "-m", "hz", "tick", "--now", "2026-10-26T09:10Z"], cwd=clone,
                          env={**environ, "PATH": str(shim)}, capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    assert (idle.returncode, idle.stdout, idle.stderr) == (0, "nothing due\n", "")
    assert [_verb(line) for line in calls.read_text().splitlines()] == ["fetch", "for-each-ref"]


def _verb(call: str) -> str:
    """The git command of a shim line, past its `-C <repo>` and `-c <setting>` options."""
    words = call.split()
    while words[0] in ("-C", "-c"):
        words = words[2:]
    return words[0]
