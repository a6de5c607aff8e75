"""No self-wakes (issue 11, finding 5): the merge of a contract's own draft does not wake it.

A contract that reads `git:.` drafted; the review merged the draft. Its history moved, but only by its
own output, so the next tick wakes nothing. Another member's commit afterwards does wake it, and so does
one that lands before the merge. Real repository, real ticks, the offline runner.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.tick.daemon import tick
from hz.tick.report import TickReport
from tests.turn.agents import adopt, contract_text

T0 = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
CONTRACT_ID = "01KC5555555555555555555555"


def reader() -> str:
    text = contract_text("history-note").replace("name: history-note\n", f"name: history-note\nid: {CONTRACT_ID}\n")
    inputs = '  inputs:\n    history:\n      source: "git:."\n      window: 30d\n  outputs:\n'
    text = text.replace("  outputs:\n", inputs, 1)
    return text.replace("### Maintains", "### Requires\n\n- `history`: what changed.\n\n### Maintains", 1)


def git(repo: Path, *args: str, when: datetime, who: str = "Rae <rae@example.org>") -> str:
    name, _, email = who.partition(" <")
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    email = email.rstrip(">")
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp, "GIT_AUTHOR_NAME": name,
           "GIT_COMMITTER_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_EMAIL": email}  # fmt: skip
    done = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(repo: Path, path: str, text: str, message: str, when: datetime, who: str = "Ana <ana@example.org>") -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", "--", path, when=when)
    git(repo, "commit", "-q", "-m", message, when=when, who=who)


def merge_own_draft(repo: Path, agent_id: str, when: datetime, above: tuple[str, str] | None = None) -> None:
    """The draft as a branch commit with hz's trailers, merged into main by a reviewer (`--no-ff`); `above`: a
    file (path, text) the reviewer commits on the branch, above the draft, before merging."""
    git(repo, "checkout", "-q", "-b", "hz/draft/history-note/note", when=when)
    message = (
        "history-note: note for 2026-W44\n\n"
        f"Hz-Draft: {agent_id}@v1@2026-10-26T09:00Z@state:reports/history-note.md\n"
        "Hz-Slot: 2026-10-26T09:00Z\n"
        f"Hz-Contract: {CONTRACT_ID}\n"
        "Hz-Output: note\n"
    )
    commit(repo, "reports/history-note.md", "## summary\n\nmerged\n", message, when, who="hz <hz>")
    if above is not None:
        commit(repo, above[0], above[1], "Reword the note", when + timedelta(seconds=30), who="Rae <rae@example.org>")
    git(repo, "checkout", "-q", "main", when=when)
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge the history note", "hz/draft/history-note/note",
        when=when + timedelta(minutes=1))  # fmt: skip


def causes(report: TickReport) -> list[tuple[str, str | None]]:
    return [(e["action"], e.get("disposition")) for e in report.woken]


def test_the_merge_of_its_own_draft_does_not_wake_it_another_commit_does(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "main", when=T0)
    commit(repo, "README.md", "hello\n", "start", T0 - timedelta(days=1))
    agent_id = adopt(reader(), now=T0)
    assert causes(tick(root=repo, now=T0)) == [("started", "drafted")]  # the created turn saw the history
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=5))) == []

    merge_own_draft(repo, agent_id, T0 + timedelta(minutes=6))
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=10))) == []  # its own output: no news
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=15))) == []

    commit(repo, "src/app.py", "print(1)\n", "a change by Ana", T0 + timedelta(minutes=16))
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=20))) == [("started", "drafted")]
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=25))) == []


def test_a_commit_under_its_own_merge_still_wakes_it(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "main", when=T0)
    commit(repo, "README.md", "hello\n", "start", T0 - timedelta(days=1))
    agent_id = adopt(reader(), now=T0)
    assert causes(tick(root=repo, now=T0)) == [("started", "drafted")]
    commit(repo, "src/app.py", "print(1)\n", "a change by Ana", T0 + timedelta(minutes=3))
    merge_own_draft(repo, agent_id, T0 + timedelta(minutes=6))  # on top of Ana's commit
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=10))) == [("started", "drafted")]


def test_a_squash_that_kept_the_trailers_is_its_own_too(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "main", when=T0)
    commit(repo, "README.md", "hello\n", "start", T0 - timedelta(days=1))
    agent_id = adopt(reader(), now=T0)
    assert causes(tick(root=repo, now=T0)) == [("started", "drafted")]
    message = f"History note (#12)\n\n* history-note: note\n\nHz-Draft: {agent_id}@v1@x\nHz-Contract: {CONTRACT_ID}\n"
    commit(
        repo, "reports/history-note.md", "## summary\n\nsquashed\n", message, T0 + timedelta(minutes=6), "Rae <r@x.org>"
    )
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=10))) == []


def test_a_reviewers_edit_of_the_draft_merged_with_it_is_its_own_another_file_is_not(repo: Path) -> None:
    """The usual review edits the draft on its branch, then merges: the edit commit has no trailers, but it
    changes only the draft's file above the draft commit. A commit on the branch changing any other file
    is news."""
    git(repo, "checkout", "-q", "-b", "main", when=T0)
    commit(repo, "README.md", "hello\n", "start", T0 - timedelta(days=1))
    agent_id = adopt(reader(), now=T0)
    assert causes(tick(root=repo, now=T0)) == [("started", "drafted")]
    edited = ("reports/history-note.md", "## summary\n\nreworded\n")
    merge_own_draft(repo, agent_id, T0 + timedelta(minutes=6), above=edited)
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=10))) == []

    git(repo, "branch", "-q", "-D", "hz/draft/history-note/note", when=T0)
    merge_own_draft(repo, agent_id, T0 + timedelta(minutes=16), above=("src/app.py", "print(1)\n"))
    assert causes(tick(root=repo, now=T0 + timedelta(minutes=20))) == [("started", "drafted")]
