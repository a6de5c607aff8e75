"""`file:` globs attacked by volume: many files, each within the bound of one file, planted under an
innocent glob. Before, each was read whole, so twenty planted 1 MiB files put 20 MiB into one prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hz.repo_paths import MAX_FILE_BYTES
from hz.sources.cache import SourceCache
from tests.deadline import within
from tests.sources.helpers import fetch

PAST = "would take the glob past 1024 KiB for all its files together (read in path order)"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("# A\n")
    return root


def _facets(uri: str, root: Path, cache: SourceCache) -> dict[str, Any]:
    with within(5):
        return dict(fetch(uri, cache, root=root).facets)


def test_a_glob_reads_its_files_within_one_files_bound_and_names_the_rest(tree: Path, cache: SourceCache) -> None:
    third = MAX_FILE_BYTES // 3
    for name in ("b", "c", "d", "e"):
        (tree / "docs" / f"{name}.md").write_text(name * third)
    facets = _facets("file:docs/*.md", tree, cache)
    assert facets["paths"] == ["docs/a.md", "docs/b.md", "docs/c.md"]
    assert facets["skipped"] == {"docs/d.md": PAST, "docs/e.md": PAST}
    assert sum(len(t) for t in facets["text"].values()) <= MAX_FILE_BYTES


def test_a_small_file_after_the_bound_still_fits(tree: Path, cache: SourceCache) -> None:
    (tree / "docs" / "b.md").write_text("b" * (MAX_FILE_BYTES - 100))
    (tree / "docs" / "c.md").write_text("c" * 200)
    (tree / "docs" / "d.md").write_text("tiny\n")
    facets = _facets("file:docs/*.md", tree, cache)
    assert facets["paths"] == ["docs/a.md", "docs/b.md", "docs/d.md"]
    assert facets["skipped"] == {"docs/c.md": PAST}


def test_a_glob_under_the_bound_reads_as_before(tree: Path, cache: SourceCache) -> None:
    (tree / "docs" / "b.md").write_text("# B\n")
    assert _facets("file:docs/*.md", tree, cache) == {
        "text": {"docs/a.md": "# A", "docs/b.md": "# B"},
        "paths": ["docs/a.md", "docs/b.md"],
    }
