"""state.file.write against a real bare remote: a branch with the approved file, pushed once, found again
by its trailer, never written under .git, .github/ or outside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from hz.gitstate.events import PublishDone
from hz.review.publish import publish_key, run_publishes
from hz.review.publish_file import branch_for
from tests.review.publish_child import Spec
from tests.review.publish_setup import DRAFT, TEXT, branches, context, git, team_repo

NEW = TEXT + "\n## Risks\n\nNone.\n"


def test_a_file_publish_is_one_branch_with_the_text_and_its_trailer(tmp_path: Path) -> None:
    bare, clone = team_repo(tmp_path)
    main = git("--git-dir", str(bare), "rev-parse", "main")
    spec = Spec("state.file.write", "report", "state:published/{slot:%G-W%V}.md")
    recorded: list[PublishDone] = []
    first = run_publishes(context(clone, [spec], recorded, text=NEW))
    again = run_publishes(context(clone, [spec], recorded, text=NEW))
    assert [r.status for r in first] == ["written"] and [r.status for r in again] == ["found"]
    key = publish_key(DRAFT, "state.file.write", "state:published/2026-W49.md")
    ((ref, tip),) = branches(bare).items()
    assert ref == f"refs/heads/{branch_for(DRAFT, key)}"
    assert git("--git-dir", str(bare), "show", f"{tip}:published/2026-W49.md") + "\n" == NEW
    assert f"Hz-Publish: {key}" in git("--git-dir", str(bare), "log", "-1", "--format=%B", tip)
    assert (
        git("--git-dir", str(bare), "rev-parse", f"{tip}^") == main == git("--git-dir", str(bare), "rev-parse", "main")
    )
    assert recorded[0].target == "state:published/2026-W49.md" and {r.key for r in recorded} == {key}


def test_text_already_on_main_is_found_and_nothing_is_pushed(tmp_path: Path) -> None:
    bare, clone = team_repo(tmp_path)
    spec = Spec("state.file.write", "report", "state:reports/w48.md")  # the draft's own merge wrote it
    recorded: list[PublishDone] = []
    assert [r.status for r in run_publishes(context(clone, [spec], recorded))] == ["found"]
    assert branches(bare) == {} and len(recorded) == 1


def test_a_branch_another_member_pushed_first_is_found(tmp_path: Path) -> None:
    bare, clone = team_repo(tmp_path)
    other = tmp_path / "other"
    git("clone", "-q", str(bare), str(other))
    spec = Spec("state.file.write", "report", "state:published/w48.md")
    assert [r.status for r in run_publishes(context(other, [spec], [], text=NEW))] == ["written"]
    assert [r.status for r in run_publishes(context(clone, [spec], [], text=NEW))] == ["found"]
    assert len(branches(bare)) == 1


def test_a_branch_of_that_name_without_the_trailer_is_refused(tmp_path: Path) -> None:
    _bare, clone = team_repo(tmp_path)
    key = publish_key(DRAFT, "state.file.write", "state:published/w48.md")
    git("push", "-q", "origin", f"HEAD:refs/heads/{branch_for(DRAFT, key)}", cwd=clone)
    (result,) = run_publishes(context(clone, [Spec("state.file.write", "report", "state:published/w48.md")], []))
    assert result.status == "failed" and "not this publish's" in (result.error or "")


@pytest.mark.parametrize(
    "path",
    [".git/config", ".github/workflows/ci.yml", "../outside.md", "/etc/passwd", "a/../../b.md", ".GIT/hooks/x",
     ".gitattributes", "docs//x.md"],
)  # fmt: skip
def test_paths_outside_the_rule_are_refused_and_nothing_is_pushed(tmp_path: Path, path: str) -> None:
    bare, clone = team_repo(tmp_path)
    (result,) = run_publishes(context(clone, [Spec("state.file.write", "report", f"state:{path}")], [], text=NEW))
    assert result.status == "failed" and branches(bare) == {}


def test_a_folder_on_main_is_not_replaced_by_a_file(tmp_path: Path) -> None:
    bare, clone = team_repo(tmp_path)
    (result,) = run_publishes(context(clone, [Spec("state.file.write", "report", "state:reports")], [], text=NEW))
    assert result.status == "failed" and "folder or a link" in (result.error or "") and branches(bare) == {}
