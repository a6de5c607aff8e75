"""The `file:` glob walk names exactly the files the glob's rules name, and never enters a link."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.repo_paths import is_git_name, problem
from hz.sources.fileglob import matching
from hz.tick.repoglob import matches

NAMES = st.sampled_from(["a.md", "b.txt", ".h.md", "x", "A.MD", "[c].md", ".git", ".GIT"])
FOLDERS = st.sampled_from(["", "d", "e", "d/f", "d/f/g", ".git", "e/.Git"])
PARTS = st.sampled_from(["*", "**", "*.md", "d", "e", "f", "g", "a.md", "?.md", "[ab]*", "[[]c].md", ".h*"])


def _every_file(root: Path) -> set[str]:
    found: set[str] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not is_git_name(d)]
        for name in files:
            if not is_git_name(name):
                found.add((Path(folder) / name).relative_to(root).as_posix())
    return found


@settings(max_examples=200, deadline=None)
@given(files=st.lists(st.tuples(FOLDERS, NAMES), max_size=12), glob=st.lists(PARTS, min_size=1, max_size=4))
def test_the_walk_names_what_the_glob_names(files: list[tuple[str, str]], glob: list[str]) -> None:
    pattern = "/".join(glob)
    assert problem(pattern, "input") is None
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for folder, name in files:
            try:
                (root / folder).mkdir(parents=True, exist_ok=True)
                (root / folder / name).write_text("x")
            except (FileExistsError, NotADirectoryError, IsADirectoryError):
                continue  # a file and a folder of the same name: keep the first
        assert matching(root, pattern) == sorted(p for p in _every_file(root) if matches(pattern, p))


def test_a_link_the_glob_would_enter_is_returned_not_entered(tmp_path: Path) -> None:
    (tmp_path / "handbook").mkdir()
    (tmp_path / "handbook" / "a.md").write_text("x")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "hb").symlink_to("../handbook", target_is_directory=True)
    (tmp_path / "docs" / "loop").symlink_to("..", target_is_directory=True)
    assert matching(tmp_path, "docs/*/*.md") == ["docs/hb", "docs/loop"]
    assert matching(tmp_path, "docs/**/*.md") == ["docs/hb", "docs/loop"]
    assert matching(tmp_path, "**/a.md") == ["docs/hb", "docs/loop", "handbook/a.md"]
