"""`git:` read from one `git log` stream: every author of the window, the paths git itself lists."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.sources.gitlog import commits
from tests.sources.helpers import commit, days_ago, fetch, git, new_repo, spread_history

WEEK = timedelta(days=7)


def test_authors_include_whoever_only_merged_off_the_first_parent_line(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "repo")
    commit(repo, "README.md", "v0\n", days_ago(30), "Start")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, "a.md", "a\n", days_ago(4), "Feature work", author="Ana P <ana@example.org>")
    git(repo, "checkout", "-q", "-b", "fix", "main")
    commit(repo, "b.md", "b\n", days_ago(4), "A fix", author="Ana P <ana@example.org>")
    git(repo, "checkout", "-q", "feature")
    # Bo's only commit of the week: a merge on the feature branch, which main merges with its own merge
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge the fix into feature",
        "fix",
        when=days_ago(3),
        author="Bo K <bo@x.org>",
    )
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge feature", "feature", when=days_ago(2))
    result = fetch("git:.", cache, root=repo, window=WEEK)
    assert result.facets["authors"] == ["Ana P", "Bo K", "hz test"]
    assert [m["subject"] for m in result.facets["merged"]] == ["Merge feature"], "merged: the first-parent line only"
    by_path = fetch("git:.", SourceCache(tmp_path / "c2"), root=repo, window=WEEK, query="path:b.md")
    assert by_path.facets["authors"] == ["Ana P", "Bo K", "hz test"], "each merge brought b.md to its first parent"


def test_a_commit_that_only_changes_a_mode_lists_its_path(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "repo")
    commit(repo, "tools/run.sh", "echo hi\n", days_ago(3), "Add the script")
    git(repo, "update-index", "--chmod=+x", "tools/run.sh")
    git(repo, "commit", "-q", "-m", "Make it executable", when=days_ago(2))
    result = fetch("git:.", cache, root=repo, window=WEEK)
    assert [(c["subject"], c["paths"]) for c in result.facets["commits"]] == [
        ("Add the script", ["tools/run.sh"]),
        ("Make it executable", ["tools/run.sh"]),
    ]


def test_paths_match_git_log_name_only_renames_and_type_changes_included(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    commit(repo, "a/old.md", "x\n" * 20, days_ago(5), "Start")
    git(repo, "mv", "a/old.md", "a/new.md")
    git(repo, "commit", "-q", "-m", "Rename", when=days_ago(4))
    git(repo, "rm", "-q", "a/new.md")
    commit(repo, "a/new.md/inner.md", "now a folder\n", days_ago(3), "A file becomes a folder")
    (repo / "weird\nname\u00e9.md").write_text("w\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "Odd name", when=days_ago(2))
    expected = subprocess.run(
        ["git", "-C", str(repo), "log", "-z", "--no-renames", "--name-only", "--format=%x00%H"],
        capture_output=True,
        check=True,
    ).stdout
    listed: dict[str, set[bytes]] = {}
    tokens = iter(expected.split(b"\0"))
    for token in tokens:  # an empty field, then the id, then the paths (the first after a newline)
        if token == b"":
            current = listed.setdefault(next(tokens, b"").decode(), set())
        elif token:
            current.add(token.removeprefix(b"\n"))
    with commits(repo, git(repo, "rev-parse", "HEAD")) as log:
        got = {c.id: set(c.paths) for c in log}
    listed.pop("", None)  # the end of the output
    assert got == listed
    assert got[git(repo, "rev-parse", "HEAD~1")] == {b"a/new.md", b"a/new.md/inner.md"}


def test_git_is_stopped_when_the_walk_leaves_the_window(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    spread_history(repo, 3000, days_ago(1), timedelta(hours=1))  # more output than a pipe holds
    with commits(repo, git(repo, "rev-parse", "HEAD")) as log:
        first = next(log)
    assert first.subject == b"Change 2999" and first.paths == (b"notes/n3.md",)


def test_a_history_git_cannot_read_is_a_clear_error(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "repo")
    commit(repo, "a/one.md", "1\n", days_ago(3), "One")
    commit(repo, "b/two.md", "2\n", days_ago(2), "Two")
    tree = git(repo, "rev-parse", "HEAD~1^{tree}")
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()  # the first commit's tree is gone
    with pytest.raises(SourceError) as caught:
        fetch("git:.", cache, root=repo, window=WEEK)
    assert caught.value.code == "malformed"
    assert caught.value.message.startswith(f"git log failed in {repo}: ")
    assert caught.value.hint == "git fsck names missing or damaged objects"


def test_blank_lines_before_a_subject_are_no_subject(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / "a.md").write_text("a\n")
    git(repo, "add", "a.md")
    git(repo, "commit", "-q", "--cleanup=verbatim", "-m", "\n\nImported from svn\n\nrevision 253", when=days_ago(2))
    result = fetch("git:.", cache, root=repo, window=WEEK)
    assert [c["subject"] for c in result.facets["commits"]] == ["Imported from svn"]
