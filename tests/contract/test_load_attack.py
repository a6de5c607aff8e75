"""The files hz reads on its own account, attacked through links: a contract, the playbook, a hint's
glob and the discovery walk all keep the repository's path rule (`hz.repo_paths`).

Before, a committed link `workflows/x.prose.md -> ../.git/config` was read and parsed as a contract (a
link was checked only for leaving the repository), the playbook was read the same way, and the hint
check and the discovery walk compared `.git` case-sensitively and only as a hint's first folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hz.contract.playbook import load_playbook
from hz.contract.project import compile_repository
from hz.diagnostic import Diagnostic
from hz.repo_paths import MAX_FILE_BYTES
from hz.tick.repoglob import matching_files

from .samples import GOOD

INTO_GIT = "remove the link; hz never reads .git"
PLAYBOOK_FIX = "fix workflows/_playbook.yaml; until then no hint proposes anything"


@pytest.fixture
def team(repo: Path) -> Path:
    (repo / "workflows").mkdir()
    return repo


def _file_problems(root: Path) -> list[Diagnostic]:
    return [d for d in compile_repository(root, os.environ).diagnostics if d.loc == "file"]


def test_a_contract_linked_into_git_is_not_read(team: Path) -> None:
    os.symlink("../.git/config", team / "workflows" / "x.prose.md")
    assert _file_problems(team) == [
        Diagnostic(
            "workflows/x.prose.md",
            1,
            1,
            "HZC001",
            "error",
            "file",
            "the file leads into .git through the link workflows/x.prose.md; hz does not read it",
            INTO_GIT,
        )
    ]


def test_a_contracts_folder_linked_into_git_is_not_read(team: Path) -> None:
    hooks = team / ".git" / "hooks"
    (hooks / "x.prose.md").write_text(GOOD.replace("weekly-digest", "x"))
    os.rmdir(team / "workflows")
    os.symlink(".git/hooks", team / "workflows")
    assert [(d.code, d.message) for d in _file_problems(team)] == [
        ("HZC001", "the file leads into .git through the link workflows; hz does not read it")
    ]


def test_a_huge_contract_is_not_read_whole(team: Path) -> None:
    (team / "workflows" / "weekly-digest.prose.md").write_text(GOOD + "x" * MAX_FILE_BYTES)
    assert [(d.code, d.message, d.hint) for d in _file_problems(team)] == [
        (
            "HZC001",
            "the file is larger than 1024 KiB; hz does not read it",
            "split the file, or point the input at a smaller one",
        )
    ]


def test_the_playbook_linked_into_git_is_not_read(team: Path) -> None:
    os.symlink("../.git/config", team / "workflows" / "_playbook.yaml")
    assert load_playbook(team) == (
        (),
        [
            Diagnostic(
                "workflows/_playbook.yaml",
                1,
                1,
                "HZC001",
                "error",
                "file",
                "the playbook cannot be read: leads into .git through the link workflows/_playbook.yaml",
                PLAYBOOK_FIX,
            )
        ],
    )


def test_a_fifo_as_the_playbook_is_named_not_waited_on(team: Path) -> None:
    os.mkfifo(team / "workflows" / "_playbook.yaml")
    _, problems = load_playbook(team)
    assert [d.message for d in problems] == ["the playbook cannot be read: is a FIFO, not a regular file"]


@pytest.mark.parametrize("match", ["file:docs/.git/config", "file:.GIT/*", "file:**/.Git/**", "file:x/git~1/HEAD"])
def test_a_hint_into_git_in_any_spelling_or_depth_is_refused(team: Path, match: str) -> None:
    (team / "workflows" / "_playbook.yaml").write_text(f"hints:\n  - name: h\n    match: {match!r}\n    why: w\n")
    hints, problems = load_playbook(team)
    assert hints == ()
    assert [(d.code, d.loc, d.message) for d in problems] == [
        ("HZC020", "hints[0].match", "the path must be relative to the repository root, without `..` or `.git`")
    ]


def test_the_discovery_walk_never_enters_or_lists_git_in_another_spelling(repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("a\n")
    (repo / ".GIT").mkdir()  # the repository's .git on a case-insensitive disk
    (repo / ".GIT" / "config.md").write_text("[remote] url = https://u:t0k@host/r\n")
    os.symlink("../.GIT/config.md", repo / "docs" / "b.md")
    assert matching_files(repo, "**/*.md") == ["docs/a.md"]
    assert matching_files(repo, ".GIT/*") == []


def test_discovery_never_proposes_a_file_git_ignores(repo: Path) -> None:
    (repo / ".gitignore").write_text(".env\n*.log\n")
    (repo / ".env").write_text("OPENAI_API_KEY=sk-local\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("a\n")
    (repo / "docs" / "debug.log").write_text("local noise\n")
    assert matching_files(repo, "**") == [".gitignore", "docs/a.md"]


def test_a_deeply_nested_policy_file_is_a_problem_not_a_crash(repo: Path) -> None:
    """tomllib parses nesting by recursion: 2 KB of brackets exited every command with 3."""
    from hz.contract.policy import load_policies

    (repo / "policies").mkdir()
    (repo / "policies" / "auto-approve.toml").write_text("a = " + "[" * 1000 + "]" * 1000 + "\n")
    policies = load_policies(repo)
    assert policies.problem is not None and "recursion" in policies.problem
    compile_repository(repo, os.environ)


def test_the_directory_defaults_linked_into_git_are_not_read(team: Path) -> None:
    os.symlink("../.git/config", team / "workflows" / "_defaults.yaml")
    assert [(d.code, d.message) for d in compile_repository(team, os.environ).diagnostics] == [
        ("HZC001", "_defaults.yaml cannot be read: it leads into .git through the link workflows/_defaults.yaml")
    ]


def test_the_auto_approve_policies_linked_out_of_the_repository_are_not_read(repo: Path, tmp_path: Path) -> None:
    from hz.contract.policy import load_policies

    elsewhere = tmp_path / "elsewhere.toml"
    elsewhere.write_text("[policy.all]\n")
    (repo / "policies").mkdir()
    os.symlink(elsewhere, repo / "policies" / "auto-approve.toml")
    policies = load_policies(repo)
    assert policies.problem == (
        "policies/auto-approve.toml leads out of the repository through the link policies/auto-approve.toml"
    )
