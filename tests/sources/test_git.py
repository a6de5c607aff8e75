from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources.conftest import NOW
from tests.sources.helpers import commit, days_ago, fetch, git, new_repo

WEEK = timedelta(days=7)
LATER = NOW + timedelta(hours=2)  # a clock past the fixture's commit "After the slot": it is not dated ahead


@pytest.fixture
def history(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "repo")
    commit(repo, "README.md", "v0\n", days_ago(30), "Start the project")
    commit(repo, "hz/sources/git.py", "x = 1\n", days_ago(5), "Read history", author="Ana P <ana@example.org>")
    commit(repo, "docs/guide.md", "guide\n", days_ago(3), "Write the guide", author="Lee R <lee@example.org>")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, "hz/cli/source.py", "y = 2\n", days_ago(2), "Add the source command", author="Ana P <ana@example.org>")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge the source command", "feature", when=days_ago(1))
    commit(repo, "README.md", "later\n", NOW + timedelta(hours=1), "After the slot")
    return repo


def test_commits_in_the_window_oldest_first(history: Path, cache: SourceCache) -> None:
    result = fetch("git:.", cache, root=history, window=WEEK, slot=NOW, now=LATER)
    commits = result.facets["commits"]
    assert [c["subject"] for c in commits] == ["Read history", "Write the guide", "Add the source command"]
    assert commits[0]["paths"] == ["hz/sources"]
    assert commits[0]["author"] == "Ana P"
    assert commits[0]["email"] == "ana@example.org"
    assert commits[0]["time"] == "2026-11-23T12:00:00Z"
    assert result.facets["authors"] == ["Ana P", "Lee R", "hz test"]
    [merge] = result.facets["merged"]
    assert merge["subject"] == "Merge the source command"
    assert merge["merged"] == git(history, "rev-parse", "feature")


def test_query_by_path_author_and_facet(history: Path, cache: SourceCache) -> None:
    by_path = fetch("git:.", cache, root=history, window=WEEK, query="path:hz/*")
    assert [c["subject"] for c in by_path.facets["commits"]] == ["Read history", "Add the source command"]
    by_author = fetch("git:.", cache, root=history, window=WEEK, query="author:lee@")
    assert [c["subject"] for c in by_author.facets["commits"]] == ["Write the guide"]
    only = fetch("git:.", cache, root=history, window=WEEK, query="merged")
    assert set(only.facets) == {"merged"}


def test_a_branch_query_walks_that_branch(history: Path, cache: SourceCache) -> None:
    result = fetch("git:.", cache, root=history, window=WEEK, query="branch:feature")
    assert [c["subject"] for c in result.facets["commits"]] == [
        "Read history",
        "Write the guide",
        "Add the source command",
    ]
    assert result.facets["merged"] == []


def test_an_unknown_query_term_is_an_error(history: Path, cache: SourceCache) -> None:
    with pytest.raises(SourceError) as caught:
        fetch("git:.", cache, root=history, query="since:monday")
    assert caught.value.render() == (
        "error: git:.: cannot read the query term 'since:monday'\n"
        "  hint: known terms: path:<glob>, author:<text>, branch:<name>, commits, merged, authors, tags"
    )


def test_tags_in_the_window(history: Path, cache: SourceCache) -> None:
    git(history, "tag", "v0.1", "HEAD~3")
    result = fetch("git:.", cache, root=history, facets=("tags",))
    assert result.facets == {
        "tags": [{"name": "v0.1", "target": git(history, "rev-parse", "HEAD~3"), "time": "2026-11-23T12:00:00Z"}]
    }


def test_a_commit_in_the_window_moves_only_commit_facets(history: Path, cache: SourceCache, tmp_path: Path) -> None:
    before = fetch("git:.", cache, root=history, window=WEEK).fingerprints
    commit(history, "docs/more.md", "more\n", days_ago(0.5), "More docs")
    after = fetch("git:.", SourceCache(tmp_path / "c2"), root=history, window=WEEK).fingerprints
    assert after["commits"] != before["commits"]
    assert after["merged"] == before["merged"]
    assert after["authors"] == before["authors"]


def test_the_same_history_gives_the_same_fingerprints_in_a_fresh_clone(history: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(history), str(clone))
    here = fetch("git:.", SourceCache(tmp_path / "c1"), root=history, window=WEEK).fingerprints
    there = fetch("git:.", SourceCache(tmp_path / "c2"), root=clone, window=WEEK).fingerprints
    assert here == there


def test_another_local_repository_by_path(history: Path, tmp_path: Path, cache: SourceCache) -> None:
    elsewhere = new_repo(tmp_path / "elsewhere")
    result = fetch(f"git:{history}", cache, root=elsewhere, window=WEEK, slot=NOW, now=LATER)
    assert len(result.facets["commits"]) == 3


def test_no_repository_is_not_found(tmp_path: Path, cache: SourceCache) -> None:
    with pytest.raises(SourceError) as caught:
        fetch("git:missing", cache, root=tmp_path, window=WEEK)
    assert caught.value.message == f"git:missing: no git repository at {tmp_path / 'missing'}"
    assert not cache.root.exists()


def test_an_empty_repository_has_no_head(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "empty")
    with pytest.raises(SourceError) as caught:
        fetch("git:.", cache, root=repo)
    assert caught.value.render() == "error: git:.: the repository has no HEAD\n  hint: commit something first"
