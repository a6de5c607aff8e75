"""`file:` reads attacked between the path rule's check and the read (TOCTOU).

The source checks a path (links followed only while they stay inside and out of `.git`) and then reads
the link-free path it found; the model's `hz:file.text.read` does the same. A folder on that path
swapped for a link into `.git` after the check (a `git checkout` of a hostile branch running meanwhile)
made the read open `.git/config`, credential and all: the kernel follows the new link. Now the read
opens each folder from the one before it with `O_NOFOLLOW`, so a swapped folder fails the read instead.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hz.repo_paths import read_file
from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.turn.hztools import ToolRefused, file_text
from tests.sources.helpers import fetch

SECRET = "ghp_planted0credential0in0the0remote0url"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text(f'[remote "origin"]\n\turl = https://priya:{SECRET}@example.invalid/x\n')
    (root / "docs").mkdir()
    (root / "docs" / "config").write_text("harmless notes\n")
    return root


def _race(root: Path, read: Callable[[], str | None]) -> list[str]:
    """What `read` returned while a thread swapped `docs` for a link to `.git` and back, for a second."""
    stop = threading.Event()

    def flip() -> None:
        docs, kept = root / "docs", root / "docs.kept"
        while not stop.is_set():
            with contextlib.suppress(OSError):
                docs.rename(kept)
                docs.symlink_to(root / ".git", target_is_directory=True)
                time.sleep(0.0001)
                docs.unlink()
                kept.rename(docs)
            time.sleep(0.0002)  # the folder stays a folder a moment too, so reads also get through

    flipper = threading.Thread(target=flip)
    flipper.start()
    seen: list[str] = []
    try:
        started = time.monotonic()
        while time.monotonic() < started + 1 or (not seen and time.monotonic() < started + 10):
            text = read()
            if text is not None:
                seen.append(text)
    finally:
        stop.set()
        flipper.join()
    return seen


def test_a_checked_read_never_opens_git_through_a_folder_swapped_in(tree: Path) -> None:
    def read() -> str | None:
        data = read_file(tree, "docs/config")
        return data.decode() if isinstance(data, bytes) else None

    seen = _race(tree, read)
    assert seen and set(seen) == {"harmless notes\n"}


def test_the_file_source_never_reads_git_through_a_folder_swapped_in(tree: Path, cache: SourceCache) -> None:
    def read() -> str | None:
        try:
            return str(fetch("file:docs/config", cache, root=tree, force=True).facets["text"])
        except SourceError:  # refused, or the file was away for a moment: never the secret
            return None

    seen = _race(tree, read)
    assert seen and not any(SECRET in text for text in seen)


def test_the_file_tool_never_reads_git_through_a_folder_swapped_in(tree: Path) -> None:
    tool = file_text(tree)

    def read() -> str | None:
        try:
            return tool.call({"path": "docs/config"})
        except ToolRefused:
            return None

    seen = _race(tree, read)
    assert seen and set(seen) == {"harmless notes\n"}


@pytest.mark.parametrize("path", [".", "docs/..", ""])
def test_the_file_tool_refuses_the_root_itself(tree: Path, path: str) -> None:
    with pytest.raises(ToolRefused):
        file_text(tree).call({"path": path})
