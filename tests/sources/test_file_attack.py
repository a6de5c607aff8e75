"""`file:` inputs attacked by volume and through a member's local secrets.

- Many files, each within the bound of one file, planted under an innocent glob: before, each was read
  whole, so twenty planted 1 MiB files put 20 MiB into one prompt.
- A member's `.env` (ignored by git, never committed) swept up by a glob, or reached through a committed
  link `docs/notes.md -> ../.env`, or read by the model's `hz:file.text.read` when a planted document
  tells it to: before, all three sent the secret to the model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hz.repo_paths import MAX_FILE_BYTES
from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.turn.hztools import ToolRefused, file_text
from tests.deadline import within
from tests.sources.helpers import fetch, git, new_repo

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


def test_twenty_skipped_files_are_named_and_the_rest_counted(tree: Path, cache: SourceCache) -> None:
    """A planted folder of many files (or links) must not turn into a list as long as itself in the prompt."""
    (tree / "docs" / "big.md").write_text("b" * (MAX_FILE_BYTES - 10))
    for index in range(100):
        (tree / "docs" / f"n{index:03}.md").write_text("n" * 20)
    (tree / "docs" / "l.md").symlink_to("/etc/hostname")
    skipped = _facets("file:docs/*.md", tree, cache)["skipped"]
    assert list(skipped) == ["docs/l.md"] + [f"docs/n{i:03}.md" for i in range(20)]
    assert skipped["docs/l.md"] == "leads out of the repository through the link docs/l.md"
    assert set(list(skipped.values())[1:20]) == {PAST}
    assert skipped["docs/n019.md"] == "and 80 files after it were skipped too, none read"


def test_a_glob_under_the_bound_reads_as_before(tree: Path, cache: SourceCache) -> None:
    (tree / "docs" / "b.md").write_text("# B\n")
    assert _facets("file:docs/*.md", tree, cache) == {
        "text": {"docs/a.md": "# A", "docs/b.md": "# B"},
        "paths": ["docs/a.md", "docs/b.md"],
    }


# --- a member's local secrets: files git ignores, reached by a glob or by a planted link ---------------

SECRET = "OPENAI_API_KEY=sk-planted0read0of0a0local0env"
SWEPT = "links to a file git ignores here (a member's local file, such as .env), which a glob never reads"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A real repository with a member's ignored `.env`, and a committed link to it under docs/."""
    root = new_repo(tmp_path / "checkout")
    (root / ".gitignore").write_text(".env\n*.local.md\n")
    (root / ".env").write_text(SECRET + "\n")
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("# A\n")
    (root / "docs" / "mine.local.md").write_text(SECRET + "\n")
    os.symlink("../.env", root / "docs" / "notes.md")  # the planted line of a hostile commit
    git(root, "add", ".gitignore", "docs/a.md", "docs/notes.md")
    git(root, "commit", "-q", "-m", "docs")
    return root


def test_a_glob_never_sweeps_up_an_ignored_file_or_a_link_to_one(checkout: Path, cache: SourceCache) -> None:
    facets = _facets("file:docs/*.md", checkout, cache)
    assert facets == {  # an ignored file is passed by, as git does; a committed link to one is named
        "text": {"docs/a.md": "# A"},
        "paths": ["docs/a.md"],
        "skipped": {"docs/notes.md": SWEPT},
    }
    assert SECRET not in str(_facets("file:*", checkout, cache))
    assert ".env" not in _facets("file:*", checkout, cache)["paths"]


def test_a_single_path_never_reaches_an_ignored_file_through_a_link(checkout: Path, cache: SourceCache) -> None:
    with within(5), pytest.raises(SourceError) as caught:
        fetch("file:docs/notes.md", cache, root=checkout)
    assert caught.value.render() == (
        "error: file:docs/notes.md: docs/notes.md links to a file git ignores here (a member's local file, "
        "such as .env), which hz never reads through a link\n  hint: name the file itself, or commit it"
    )


def test_an_ignored_file_a_contract_names_itself_is_its_authors_choice(checkout: Path, cache: SourceCache) -> None:
    assert _facets("file:docs/mine.local.md", checkout, cache)["text"] == {"docs/mine.local.md": SECRET}


@pytest.mark.parametrize("path", [".env", "docs/notes.md", "docs/../.env", "docs/mine.local.md"])
def test_the_file_tool_reads_no_ignored_file(checkout: Path, path: str) -> None:
    with pytest.raises(ToolRefused) as caught:
        file_text(checkout).call({"path": path})
    assert caught.value.message == (
        f"{path} is a file git ignores here (a local file such as .env), which tools do not read"
    )
    assert file_text(checkout).call({"path": "docs/a.md"}) == "# A\n"


def test_a_submodule_in_the_glob_does_not_switch_the_ignore_check_off(
    checkout: Path, tmp_path: Path, cache: SourceCache
) -> None:
    """git gives up on every path when one lies in a submodule; the `.env` was then read after all."""
    library = new_repo(tmp_path / "library")
    (library / "lib.md").write_text("# lib\n")
    git(library, "add", "lib.md")
    git(library, "commit", "-q", "-m", "lib")
    git(checkout, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "vendor/lib")
    facets = _facets("file:**", checkout, cache)
    assert facets["skipped"] == {"docs/notes.md": SWEPT}
    assert "vendor/lib/lib.md" in facets["paths"] and ".env" not in facets["paths"]
    assert SECRET not in str(facets)
