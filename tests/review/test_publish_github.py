"""github.issue.comment and github.pull.create (and state.file.write with a forge) against the fake
GitHub of tests/review/fake_forge.py, backed by a real bare repository."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hz.gitstate.events import PublishDone
from hz.gitstate.outbox import Outbox
from hz.review.forge import forge_for
from hz.review.publish import hidden_marker, publish_key, run_publishes
from hz.review.publish_file import branch_for
from tests.review.fake_forge import FakeForge
from tests.review.publish_child import Spec
from tests.review.publish_setup import DRAFT, TEXT, branches, context, git, team_repo

NEW = TEXT + "\n## Risks\n\nNone.\n"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def connect() -> Iterator[Callable[[Path, FakeForge], Any]]:
    """`connect(clone, fake)`: the real GitHub adapter for the fake, its HTTP client closed after the test."""
    opened: list[Any] = []

    def start(clone: Path, fake: FakeForge) -> Any:
        opened.append(forge_for(clone, fake.environ))
        return opened[-1]

    yield start
    for forge in opened:
        forge.close()


def test_an_issue_comment_is_written_once_with_its_hidden_marker(
    tmp_path: Path, fake_forge: Callable[..., FakeForge], connect: Callable[[Path, FakeForge], Any]
) -> None:
    bare, clone = team_repo(tmp_path)
    fake = fake_forge(bare)
    issue = fake.open_issue("weekly status")
    forge = connect(clone, fake)
    spec = Spec("github.issue.comment", "report", f"github:team/hz-team#{issue}")
    recorded: list[PublishDone] = []
    first = run_publishes(context(clone, [spec], recorded, forge=forge))
    again = run_publishes(context(clone, [spec], recorded, forge=forge))
    assert [r.status for r in first] == ["written"] and [r.status for r in again] == ["found"]
    key = publish_key(DRAFT, "github.issue.comment", f"github:team/hz-team#{issue}")
    (comment,) = fake.comments(issue)
    assert comment["body"].startswith(TEXT.rstrip()) and comment["body"].rstrip().endswith(hidden_marker(key))
    assert recorded[0].target == f"github:team/hz-team/issues/{issue}" and recorded[0].key == key


def test_a_comment_on_another_repository_or_without_a_forge_is_refused(
    tmp_path: Path, fake_forge: Callable[..., FakeForge], connect: Callable[[Path, FakeForge], Any]
) -> None:
    bare, clone = team_repo(tmp_path)
    fake = fake_forge(bare)
    fake.open_issue("weekly status")
    forge = connect(clone, fake)
    elsewhere = Spec("github.issue.comment", "report", "github:other/repo#1")
    (result,) = run_publishes(context(clone, [elsewhere], [], forge=forge))
    assert result.status == "failed" and "this repository's forge is team/hz-team" in (result.error or "")
    (result,) = run_publishes(context(clone, [Spec("github.issue.comment", "report", "github:team/hz-team#1")], []))
    assert result.status == "failed" and "no forge" in (result.error or "")
    assert fake.comments(1) == []


def test_a_pull_request_publish_is_one_branch_and_one_pull_request(
    tmp_path: Path, fake_forge: Callable[..., FakeForge], connect: Callable[[Path, FakeForge], Any]
) -> None:
    bare, clone = team_repo(tmp_path)
    fake = fake_forge(bare)
    forge = connect(clone, fake)
    target = "github:team/hz-team/docs/status.md"
    spec = Spec("github.pull.create", "report", target)
    fake.fail(500)  # the first request (the lookup of the branch's pull request) fails: reported, retried
    (failed,) = run_publishes(context(clone, [spec], [], forge=forge, text=NEW))
    assert failed.status == "failed" and branches(bare) == {}
    recorded: list[PublishDone] = []
    first = run_publishes(context(clone, [spec], recorded, forge=forge, text=NEW))
    again = run_publishes(context(clone, [spec], recorded, forge=forge, text=NEW))
    assert [r.status for r in first] == ["written"] and [r.status for r in again] == ["found"]
    key = publish_key(DRAFT, "github.pull.create", target)
    (pull,) = fake.pulls()
    assert pull["head"]["ref"] == branch_for(DRAFT, key) and hidden_marker(key) in pull["body"]
    (tip,) = branches(bare).values()
    assert git("--git-dir", str(bare), "show", f"{tip}:docs/status.md") + "\n" == NEW
    assert recorded[0].target == target and recorded[0].action == "github.pull.create"


def test_a_branch_pushed_before_a_crash_gets_its_pull_request_on_the_retry(
    tmp_path: Path, fake_forge: Callable[..., FakeForge], connect: Callable[[Path, FakeForge], Any]
) -> None:
    bare, clone = team_repo(tmp_path)
    fake = fake_forge(bare)
    forge = connect(clone, fake)
    spec = Spec("state.file.write", "report", "state:published/w48.md")
    (first,) = run_publishes(context(clone, [spec], [], text=NEW))  # no forge that run: the branch alone
    assert first.status == "written" and len(branches(bare)) == 1 and fake.pulls() == []
    (second,) = run_publishes(context(clone, [spec], [], forge=forge, text=NEW))
    (third,) = run_publishes(context(clone, [spec], [], forge=forge, text=NEW))
    assert (second.status, third.status) == ("written", "found") and len(fake.pulls()) == 1
    assert len(branches(bare)) == 1


def kill_on_comment(fake: FakeForge, victim: list[int]) -> None:
    """Kill `victim[0]` once the fake has stored a comment, before the answer leaves: the writer never hears back."""
    answer = fake.api.answer

    def answer_then_kill(
        method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        reply = answer(method, target, headers, raw)
        if method == "POST" and target.endswith("/comments") and victim:
            os.kill(victim.pop(), signal.SIGKILL)
        return reply

    fake.api.answer = answer_then_kill  # type: ignore[method-assign]


def test_kill_9_between_the_comment_and_its_receipt_leaves_one_comment_and_one_receipt(tmp_path: Path) -> None:
    bare, clone = team_repo(tmp_path)
    victim: list[int] = []
    with FakeForge(bare) as fake:
        kill_on_comment(fake, victim)
        issue = fake.open_issue("weekly status")
        target = f"github:team/hz-team#{issue}"
        args = tmp_path / "args.json"
        args.write_text(json.dumps({
            "root": str(clone), "draft_key": DRAFT, "output": "report", "text": TEXT, "outbox": str(tmp_path / "ob"),
            "publishes": [["github.issue.comment", "report", target]], "environ": fake.environ, "forge": True,
        }))  # fmt: skip
        command = [sys.executable, "-m", "tests.review.publish_child", str(args)]
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
        victim.append(child.pid)
        assert child.wait(timeout=60) == -signal.SIGKILL
        assert len(fake.comments(issue)) == 1 and Outbox(tmp_path / "ob").events() == []
        rerun = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=60, check=True)
        assert json.loads(rerun.stdout) == ["found"]
        assert len(fake.comments(issue)) == 1
    events = Outbox(tmp_path / "ob").events()
    assert [e.kind for e in events] == ["publish.done"]
    assert events[0].data["key"] == publish_key(DRAFT, "github.issue.comment", target)
