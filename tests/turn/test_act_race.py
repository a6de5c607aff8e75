"""The act step's write, attacked between its last check and the write itself (TOCTOU).

`FileTarget.write` checks the path rule right before writing, but a folder of the target can be swapped
for a link after that check (a `git checkout` of a hostile branch where `reports` is a link, running
meanwhile). Before, the write named the path (`atomic_write`), so the kernel followed whatever link was
there by then; now `repo_paths.write_file` opens each folder from the one before with `O_NOFOLLOW`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.errors import HzError
from hz.fsio import atomic_write
from hz.repo_paths import MAX_FILE_BYTES, PathRefused, target_problem, write_file
from hz.review.drafts import DraftTargetError, Tag, strip_tag, withdraw
from hz.review.targets import FileTarget, target_at

SLOT = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
KEY = "hz-01KB7M3Q8RZ4W2N6YDXG5T0HCA@v1@x"
UNTOUCHED = "not hz's to touch\n"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    outside.mkdir()
    (outside / "weekly.md").write_text(UNTOUCHED)
    return root, outside


def test_a_write_that_names_the_path_follows_a_link_swapped_in(tree: tuple[Path, Path]) -> None:
    """The control: once the check is passed, a path-named write goes wherever the link now leads."""
    root, outside = tree
    (root / "reports").symlink_to(outside, target_is_directory=True)
    atomic_write(root / "reports" / "weekly.md", "drafted\n", mode=0o644)
    assert (outside / "weekly.md").read_text() == "drafted\n"


@pytest.mark.parametrize("leads", ["outside", ".git"])
def test_the_write_never_enters_a_folder_that_became_a_link(tree: tuple[Path, Path], leads: str) -> None:
    root, outside = tree
    (root / "reports").symlink_to(outside if leads == "outside" else root / ".git", target_is_directory=True)
    with pytest.raises(PathRefused) as caught:
        write_file(root, "reports/weekly.md", b"drafted\n", 0o644)
    assert caught.value.message == (
        "'reports/weekly.md' cannot be written: reports is no longer a plain folder (Not a directory)"
    )
    assert (outside / "weekly.md").read_text() == UNTOUCHED
    assert sorted(p.name for p in outside.iterdir()) == ["weekly.md"]
    assert sorted(p.name for p in (root / ".git").iterdir()) == ["config"]


def test_a_last_part_that_became_a_link_is_replaced_not_written_through(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / "reports").mkdir()
    (root / "reports" / "weekly.md").symlink_to(outside / "weekly.md")
    write_file(root, "reports/weekly.md", b"drafted\n", 0o644)
    assert (outside / "weekly.md").read_text() == UNTOUCHED
    placed = root / "reports" / "weekly.md"
    assert (placed.is_symlink(), placed.read_text(), stat.S_IMODE(placed.stat().st_mode)) == (False, "drafted\n", 0o644)


def test_missing_folders_are_made_and_nothing_else_is_left(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    write_file(root, "reports/2026/weekly.md", b"drafted\n", 0o644)
    assert (root / "reports" / "2026" / "weekly.md").read_text() == "drafted\n"
    assert os.listdir(root / "reports" / "2026") == ["weekly.md"]


def test_a_folder_flipping_to_a_link_during_many_writes_never_sends_one_outside(tree: tuple[Path, Path]) -> None:
    """The race itself: a thread swaps `reports` between a folder and a link out while drafts are written."""
    root, outside = tree
    (root / "reports").mkdir()
    target = target_at(root, "personal", "hz-x", "file:reports/weekly.md", SLOT)
    stop = threading.Event()

    def flip() -> None:
        folder = root / "reports"
        while not stop.is_set():
            with contextlib.suppress(OSError):  # the writer makes the folder too, now and then
                shutil.rmtree(folder)
                folder.symlink_to(outside, target_is_directory=True)
                time.sleep(0.0001)
                folder.unlink()
                folder.mkdir()
            time.sleep(0.0002)  # the folder stays a folder a moment too, so writes also get through

    flipper = threading.Thread(target=flip)
    flipper.start()
    written = refused = 0
    try:
        started = time.monotonic()
        while time.monotonic() < started + 1.5 or (written == 0 and time.monotonic() < started + 10):
            try:
                target.write(Tag("weekly-note", 1, KEY), "drafted")
                written += 1
            except DraftTargetError:  # a refusal with a message, never an OSError (exit 3)
                refused += 1
    finally:
        stop.set()
        flipper.join()
    assert written > 0
    assert (outside / "weekly.md").read_text() == UNTOUCHED
    assert sorted(p.name for p in outside.iterdir()) == ["weekly.md"]


SECRET = "ghp_planted0credential0in0the0remote0url"


def test_what_the_target_held_is_never_read_through_a_folder_swapped_in(tree: tuple[Path, Path]) -> None:
    """The act step keeps a target's old text in the turn's body (to put back on a reject); a folder
    swapped for a link into `.git` meanwhile copied `.git/config` there (finding 2, by a race)."""
    root, _ = tree
    (root / ".git" / "config").write_text(f'[remote "origin"]\n\turl = https://priya:{SECRET}@example.invalid/x\n')
    (root / "reports").mkdir()
    (root / "reports" / "config").write_text("last week\n")
    target = target_at(root, "personal", "hz-x", "file:reports/config", SLOT)
    stop = threading.Event()

    def flip() -> None:
        reports, kept = root / "reports", root / "reports.kept"
        while not stop.is_set():
            with contextlib.suppress(OSError):
                reports.rename(kept)
                reports.symlink_to(root / ".git", target_is_directory=True)
                time.sleep(0.0001)
                reports.unlink()
                kept.rename(reports)
            time.sleep(0.0002)  # the folder stays a folder a moment too, so reads also get through

    flipper = threading.Thread(target=flip)
    flipper.start()
    seen: list[str | None] = []
    try:
        started = time.monotonic()
        while time.monotonic() < started + 1 or ("last week\n" not in seen and time.monotonic() < started + 10):
            with contextlib.suppress(DraftTargetError):
                seen.append(target.current())
    finally:
        stop.set()
        flipper.join()
    assert "last week\n" in seen
    assert not any(SECRET in text for text in seen if text is not None)


def test_a_target_too_big_to_keep_is_refused_before_the_think(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "reports").mkdir()
    (root / "reports" / "weekly.md").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    with pytest.raises(DraftTargetError) as caught:
        target_at(root, "personal", "hz-x", "file:reports/weekly.md", SLOT)
    assert caught.value.message == (
        "the target 'file:reports/weekly.md' is larger than 1024 KiB, "
        "more than hz keeps to put back if the draft is rejected"
    )
    assert target_problem("file:reports/weekly.md", "target", root) is not None  # validation says so too


def test_a_target_that_is_no_text_is_a_refusal_not_a_crash(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "reports").mkdir()
    (root / "reports" / "weekly.md").write_bytes(b"\xff\xfe binary")
    target = target_at(root, "personal", "hz-x", "file:reports/weekly.md", SLOT)
    with pytest.raises(DraftTargetError) as caught:
        target.current()
    assert caught.value.message == (
        "the target 'file:reports/weekly.md' holds no UTF-8 text, so hz could not put it back after a reject"
    )


def _swapped_after_placing(root: Path, outside: Path) -> Path:
    """A draft placed at reports/weekly.md, then `reports` swapped for a link to `outside`, which holds a
    copy of the placed file: what a swap between the approval's read and its write looks like to a write
    that names the path. The draft's path."""
    target = target_at(root, "personal", "hz-x", "file:reports/weekly.md", SLOT)
    assert isinstance(target, FileTarget)
    target.write(Tag("weekly-note", 1, KEY), "drafted")
    (outside / "weekly.md").write_bytes(target.path.read_bytes())
    shutil.rmtree(root / "reports")
    (root / "reports").symlink_to(outside, target_is_directory=True)
    return target.path


def test_an_approval_by_path_writes_through_a_swapped_folder(tree: tuple[Path, Path]) -> None:
    """The control: `strip_tag` as it wrote before, by path, approves the file the link leads to."""
    root, outside = tree
    path = _swapped_after_placing(root, outside)
    strip_tag(path, KEY)
    assert (outside / "weekly.md").read_text() == "drafted\n"


@pytest.mark.parametrize("decide", ["approve", "reject-new", "reject-old"])
def test_an_approval_or_a_reject_never_goes_through_a_swapped_folder(tree: tuple[Path, Path], decide: str) -> None:
    root, outside = tree
    path = _swapped_after_placing(root, outside)
    placed = (outside / "weekly.md").read_text()
    with pytest.raises(HzError):
        if decide == "approve":
            strip_tag(path, KEY, root)
        else:
            withdraw(path, KEY, None if decide == "reject-new" else "last week\n", root)
    assert (outside / "weekly.md").read_text() == placed
