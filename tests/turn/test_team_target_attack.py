"""A team draft's target, attacked through what `main` holds at its path (anyone on the team can commit
there): a binary file crashed the act step (exit 3, after the paid think), a huge one went whole into the
turn's body, a folder was read as its listing. Each is now a DraftTargetError with its reason, and the
turn meets it before the think (`check_targets`), so it costs no model call."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.repo_paths import MAX_FILE_BYTES
from hz.review.drafts import DraftTargetError
from hz.review.targets import check_targets, target_at
from tests.sources.helpers import commit, days_ago, git, new_repo
from tests.turn.helpers import plan

SLOT = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
TARGET = "state:reports/weekly.md"


@pytest.fixture
def team(tmp_path: Path) -> Path:
    root = new_repo(tmp_path / "team")
    commit(root, "README.md", "# team\n", days_ago(3), "start")
    git(root, "branch", "-M", "main")
    return root


def _planted(root: Path, what: str) -> None:
    """Commit `what` at reports/weekly.md on main; the working tree keeps nothing there."""
    path = root / "reports" / "weekly.md"
    path.parent.mkdir(exist_ok=True)
    if what == "folder":
        path.mkdir()
        (path / "x.md").write_text("x\n")
    else:
        path.write_bytes(b"\xff\xfe\x00 not text" if what == "binary" else b"x" * (MAX_FILE_BYTES + 1))
    git(root, "add", "reports")
    git(root, "commit", "-q", "-m", f"a {what} where the draft goes")
    shutil.rmtree(root / "reports")


REASONS = {
    "binary": "holds no UTF-8 text on refs/heads/main",
    "huge": "is larger than 1024 KiB on refs/heads/main",
    "folder": "is a folder on refs/heads/main, not a file",
}


@pytest.mark.parametrize("what", list(REASONS))
def test_what_main_holds_at_a_team_target_is_a_named_refusal(team: Path, what: str) -> None:
    _planted(team, what)
    with pytest.raises(DraftTargetError) as caught:
        target_at(team, "team", "hz-x", TARGET, SLOT).current()
    assert caught.value.message == f"the target {TARGET!r} {REASONS[what]}"
    assert caught.value.hint == "fix the file on main by hand"


@pytest.mark.parametrize("what", list(REASONS))
def test_the_turn_meets_it_before_the_think(team: Path, what: str) -> None:
    _planted(team, what)
    with pytest.raises(DraftTargetError) as caught:
        check_targets(plan(team, scope="team", targets={"report": TARGET}), SLOT)
    assert caught.value.message == f"the target {TARGET!r} {REASONS[what]}"


def test_a_text_file_on_main_is_what_the_target_held(team: Path) -> None:
    commit(team, "reports/weekly.md", "last week\n", days_ago(1), "last week")
    assert target_at(team, "team", "hz-x", TARGET, SLOT).current() == "last week\n"
    check_targets(plan(team, scope="team", targets={"report": TARGET}), SLOT)


def test_a_link_on_main_the_work_tree_does_not_show_is_refused_before_the_think(team: Path) -> None:
    """The draft's tree is main's: `reports` committed there as a link to .github/, while the member's
    work tree (another branch, or a local folder) has a plain folder, passed the work tree check; git then
    refused the draft after the paid think."""
    (team / "reports").symlink_to(".github", target_is_directory=True)
    git(team, "add", "reports")
    git(team, "commit", "-q", "-m", "reports is .github now")
    (team / "reports").unlink()
    (team / "reports").mkdir()
    with pytest.raises(DraftTargetError) as caught:
        check_targets(plan(team, scope="team", targets={"report": TARGET}), SLOT)
    assert caught.value.message == (
        f"the target {TARGET!r} goes through reports on refs/heads/main, which is a link, a file or a submodule there"
    )
