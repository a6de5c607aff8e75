from __future__ import annotations

import os
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources.helpers import fetch


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n\nfirst\n")
    (root / "docs" / "b.md").write_text("# B\n")
    (root / "README.md").write_text("hello\n")
    return root


def test_text_per_path_and_paths(tree: Path, cache: SourceCache) -> None:
    result = fetch("file:docs/*.md", cache, root=tree)
    assert result.facets == {
        "text": {"docs/a.md": "# A\n\nfirst", "docs/b.md": "# B"},
        "paths": ["docs/a.md", "docs/b.md"],
    }
    assert result.how == "fetched"


def test_cosmetic_edits_keep_the_fingerprint(tree: Path, cache: SourceCache, tmp_path: Path) -> None:
    before = fetch("file:docs/*.md", cache, root=tree).fingerprints
    (tree / "docs" / "a.md").write_text("# A  \r\n\r\n\r\nfirst\r\n\r\n")
    after = fetch("file:docs/*.md", SourceCache(tmp_path / "other"), root=tree).fingerprints
    assert after == before


def test_a_material_change_moves_only_the_text_facet(tree: Path, cache: SourceCache, tmp_path: Path) -> None:
    before = fetch("file:docs/*.md", cache, root=tree).fingerprints
    (tree / "docs" / "b.md").write_text("# B\n\nnew line\n")
    after = fetch("file:docs/*.md", SourceCache(tmp_path / "other"), root=tree).fingerprints
    assert after["paths"] == before["paths"]
    assert after["text"] != before["text"]


def test_a_single_file(tree: Path, cache: SourceCache) -> None:
    assert fetch("file:README.md", cache, root=tree).facets == {"text": {"README.md": "hello"}, "paths": ["README.md"]}


def _refused(uri: str, tree: Path, cache: SourceCache) -> SourceError:
    with pytest.raises(SourceError) as caught:
        fetch(uri, cache, root=tree)
    assert not cache.root.exists() or not list(cache.root.glob("*.json")), "nothing may be cached"
    return caught.value


INSIDE = "name a file inside the repository, relative to its root, such as docs/notes.md"


@pytest.mark.parametrize(
    ("uri", "reason"),
    [
        ("file:../secret.txt", "goes up with '..'"),
        ("file:docs/../../secret.txt", "goes up with '..'"),
        ("file:/etc/hostname", "is absolute; hz reads and writes only inside the repository"),
        ("file:{tree}/README.md", "is absolute; hz reads and writes only inside the repository"),
    ],
)
def test_paths_outside_the_repository_are_refused(uri: str, reason: str, tree: Path, cache: SourceCache) -> None:
    (tree.parent / "secret.txt").write_text("no")
    uri = uri.format(tree=tree)
    error = _refused(uri, tree, cache)
    assert error.code == "outside-repository"
    assert error.render() == f"error: {uri}: the path {reason}\n  hint: {INSIDE}"


def test_a_symlink_that_leaves_the_root_is_skipped_and_named(tree: Path, cache: SourceCache) -> None:
    (tree.parent / "secret.txt").write_text("no")
    os.symlink(tree.parent / "secret.txt", tree / "docs" / "c.md")
    assert fetch("file:docs/*.md", cache, root=tree).facets == {
        "text": {"docs/a.md": "# A\n\nfirst", "docs/b.md": "# B"},
        "paths": ["docs/a.md", "docs/b.md"],
        "skipped": {"docs/c.md": "leads out of the repository through the link docs/c.md"},
    }


def test_a_missing_file_is_not_found(tree: Path, cache: SourceCache) -> None:
    error = _refused("file:nope.md", tree, cache)
    assert (error.code, error.message) == ("not-found", "file:nope.md: no such file in the repository")


def test_the_git_directory_is_never_matched(tree: Path, cache: SourceCache) -> None:
    (tree / ".git").mkdir()
    (tree / ".git" / "config").write_text("[core]\n")
    assert fetch("file:**/*", cache, root=tree).facets["paths"] == ["README.md", "docs/a.md", "docs/b.md"]


def test_cache_files_are_private(tree: Path, cache: SourceCache) -> None:
    fetch("file:README.md", cache, root=tree)
    modes = {p.name: p.stat().st_mode & 0o777 for p in cache.root.rglob("*")}
    assert set(modes.values()) <= {0o600, 0o700}
    assert cache.root.stat().st_mode & 0o777 == 0o700


def test_a_query_on_a_scheme_without_one_is_refused(tree: Path, cache: SourceCache) -> None:
    with pytest.raises(SourceError) as caught:
        fetch("file:README.md", cache, root=tree, query="author:me")
    assert caught.value.render() == (
        "error: file:README.md: file: sources take no query\n"
        "  hint: remove `query`, or use `facets`/`window` to narrow the input"
    )
