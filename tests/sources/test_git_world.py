"""`git:` on histories as they really are: names that are not UTF-8, clocks that run ahead, shallow clones."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.sources import gitshallow
from hz.sources.cache import SourceCache
from tests.sources.conftest import NOW
from tests.sources.helpers import commit, commit_name, days_ago, fetch, git, new_repo, spread_history

WEEK = timedelta(days=7)
YEAR = timedelta(days=365)


def _subjects(facet: list[dict[str, Any]]) -> list[str]:
    return [c["subject"] for c in facet if "subject" in c]


# -- names that are not UTF-8 ---------------------------------------------------------------------------


@pytest.fixture
def latin(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "latin")
    commit(repo, "README.md", "v0\n", days_ago(3), "Start")
    commit_name(repo, b"docs/caf\xe9/menu.md", b"menu\n", days_ago(2), "A menu in a Latin-1 folder")
    commit_name(repo, b"caf\xe9.txt", b"latin\n", days_ago(1), "A Latin-1 name")
    return repo


def test_a_latin1_name_in_history_is_carried_escaped(latin: Path, cache: SourceCache) -> None:
    result = fetch("git:.", cache, root=latin, window=WEEK)
    assert [c["paths"] for c in result.facets["commits"]] == [["README.md"], ["docs/caf\\xe9"], ["caf\\xe9.txt"]]
    by_path = fetch("git:.", cache, root=latin, window=WEEK, query="path:caf\\xe9*", force=True)
    assert _subjects(by_path.facets["commits"]) == ["A Latin-1 name"]


def test_a_latin1_name_fingerprints_the_same_in_a_fresh_clone(latin: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(latin), str(clone))
    here = fetch("git:.", SourceCache(tmp_path / "c1"), root=latin, window=WEEK).fingerprints
    there = fetch("git:.", SourceCache(tmp_path / "c2"), root=clone, window=WEEK).fingerprints
    assert here == there


def test_a_latin1_tag_name_is_carried_escaped(latin: Path, cache: SourceCache) -> None:
    subprocess.run([b"git", b"-C", bytes(latin), b"update-ref", b"refs/tags/v1-caf\xe9", b"HEAD"], check=True)
    result = fetch("git:.", cache, root=latin, window=WEEK, facets=("tags",))
    assert [t["name"] for t in result.facets["tags"]] == ["v1-caf\\xe9"]


# -- clocks that run ahead ------------------------------------------------------------------------------


def test_a_commit_dated_ahead_of_the_clock_is_listed_as_future(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "skew")
    commit(repo, "a.md", "a\n", days_ago(1), "Yesterday's work")
    commit(repo, "b.md", "b\n", NOW + timedelta(days=2), "Work from a clock two days ahead")
    git(repo, "tag", "v1")
    result = fetch("git:.", cache, root=repo, window=WEEK)
    assert [(c["subject"], c.get("future")) for c in result.facets["commits"]] == [
        ("Yesterday's work", None),
        ("Work from a clock two days ahead", True),
    ]
    assert [(t["name"], t.get("future")) for t in result.facets["tags"]] == [("v1", True)]


def test_a_commit_made_after_the_slot_waits_for_its_window(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "late")
    commit(repo, "a.md", "a\n", days_ago(1), "Before the slot")
    commit(repo, "b.md", "b\n", NOW + timedelta(hours=1), "After the slot")
    late_tick = fetch("git:.", cache, root=repo, window=WEEK, slot=NOW, now=NOW + timedelta(hours=2))
    assert _subjects(late_tick.facets["commits"]) == ["Before the slot"]
    next_slot = fetch("git:.", cache, root=repo, window=WEEK, now=NOW + timedelta(days=1), force=True)
    assert [(c["subject"], c.get("future")) for c in next_slot.facets["commits"]][-1] == ("After the slot", None)


def _raw_commit(repo: Path, who: bytes, message: bytes, *headers: bytes) -> None:
    """A commit written byte for byte on top of HEAD, as other tools (or a broken clock) made them."""
    tree, parent = git(repo, "rev-parse", "HEAD^{tree}"), git(repo, "rev-parse", "HEAD")
    lines = [b"tree " + tree.encode(), b"parent " + parent.encode(), b"author " + who, b"committer " + who]
    raw = b"\n".join([*lines, *headers]) + b"\n\n" + message + b"\n"
    made = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin", "--literally"],
        input=raw,
        capture_output=True,
        check=True,
    )
    git(repo, "update-ref", "refs/heads/main", made.stdout.decode().strip())


def test_a_commit_dated_past_the_calendar_is_future_at_its_last_second(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "far")
    commit(repo, "a.md", "a\n", days_ago(1), "Base")
    _raw_commit(repo, b"A <a@example.org> 99999999999999 +0000", b"Far future")  # year 3,170,843
    result = fetch("git:.", cache, root=repo, window=WEEK)
    assert [(c["subject"], c["time"], c.get("future")) for c in result.facets["commits"]] == [
        ("Base", "2026-11-27T12:00:00Z", None),
        ("Far future", "9999-12-31T23:59:59Z", True),
    ]


def test_commit_text_in_an_encoding_python_does_not_know_reads_as_utf8(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "enc")
    commit(repo, "a.md", "a\n", days_ago(2), "Base")
    stamp = str(int(days_ago(1).timestamp())).encode()
    _raw_commit(repo, b"Jos\xe9 <j@example.org> " + stamp + b" +0000", b"Caf\xe9 au lait", b"encoding no-such-codec")
    _raw_commit(repo, b"Jos\xe9 <j@example.org> " + stamp + b" +0000", b"Caf\xe9 latin", b"encoding ISO-8859-1")
    result = fetch("git:.", cache, root=repo, window=WEEK)
    assert sorted((c["subject"], c["author"]) for c in result.facets["commits"][1:]) == [
        ("Café latin", "José"),
        ("Caf\ufffd au lait", "Jos\ufffd"),
    ]


# -- shallow clones -------------------------------------------------------------------------------------


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """A bare remote holding 40 commits, one every ten days up to yesterday (37 of them in a year)."""
    full = new_repo(tmp_path / "full")
    spread_history(full, 40, days_ago(1), timedelta(days=10))
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(full), str(bare))
    return bare


def _clone(bare: Path, where: Path, *extra: str) -> Path:
    git(bare.parent, "clone", "-q", *extra, f"file://{bare}", str(where))
    return where


def _shallow(repo: Path) -> bool:
    return git(repo, "rev-parse", "--is-shallow-repository") == "true"


def test_a_depth_1_clone_is_deepened_for_the_window(upstream: Path, tmp_path: Path) -> None:
    full = _clone(upstream, tmp_path / "whole")
    ci = _clone(upstream, tmp_path / "ci", "--depth", "1")
    expected = fetch("git:.", SourceCache(tmp_path / "c1"), root=full, window=YEAR)
    got = fetch("git:.", SourceCache(tmp_path / "c2"), root=ci, window=YEAR)
    assert len(expected.facets["commits"]) == 37
    assert got.facets == expected.facets
    assert got.fingerprints == expected.fingerprints
    assert _shallow(ci)  # deepened for the year, not unshallowed: older history stays on the remote
    git(ci, "remote", "remove", "origin")  # the next walk of the window needs no fetch
    again = fetch("git:.", SourceCache(tmp_path / "c3"), root=ci, window=YEAR)
    assert again.fingerprints == expected.fingerprints


def test_a_clone_without_window_is_unshallowed(upstream: Path, tmp_path: Path) -> None:
    ci = _clone(upstream, tmp_path / "ci", "--depth", "1")
    got = fetch("git:.", SourceCache(tmp_path / "c"), root=ci)
    assert len(got.facets["commits"]) == 40
    assert not _shallow(ci)


def test_a_shallow_clone_without_a_remote_is_reported_truncated(upstream: Path, tmp_path: Path) -> None:
    ci = _clone(upstream, tmp_path / "ci", "--depth", "1")
    git(ci, "remote", "remove", "origin")
    tip = git(ci, "rev-parse", "HEAD")
    got = fetch("git:.", SourceCache(tmp_path / "c"), root=ci, window=YEAR)
    marker = {
        "truncated": {
            "complete_since": "2026-11-27T12:00:00Z",
            "boundary": [tip],
            "why": gitshallow.NO_REMOTE,
            "hint": gitshallow.HINT,
        }
    }
    assert got.facets["commits"] == [marker, {**got.facets["commits"][1], "paths": []}]
    assert _subjects(got.facets["commits"]) == ["Change 39"]
    assert got.facets["merged"] == [marker]
    assert got.facets["authors"] == [marker, "hz test"]
    assert got.facets["tags"] == []


def test_another_shallow_repository_is_reported_never_fetched_into(upstream: Path, tmp_path: Path) -> None:
    ci = _clone(upstream, tmp_path / "ci", "--depth", "1")
    here = new_repo(tmp_path / "here")
    got = fetch(f"git:{ci}", SourceCache(tmp_path / "c"), root=here, window=YEAR, facets=("commits",))
    assert got.facets["commits"][0]["truncated"]["why"] == gitshallow.NOT_OURS
    assert git(ci, "rev-list", "--count", "HEAD") == "1"


def test_a_failed_deepening_is_reported_truncated(upstream: Path, tmp_path: Path) -> None:
    ci = _clone(upstream, tmp_path / "ci", "--depth", "1")
    upstream.rename(tmp_path / "moved.git")
    got = fetch("git:.", SourceCache(tmp_path / "c"), root=ci, window=YEAR, facets=("commits",))
    assert got.facets["commits"][0]["truncated"]["why"] == gitshallow.FETCH_FAILED


def test_a_window_short_of_the_boundary_is_whole(upstream: Path, tmp_path: Path) -> None:
    ci = _clone(upstream, tmp_path / "ci", "--depth", "1")
    git(ci, "remote", "remove", "origin")  # nothing to fetch, and nothing needed: the tip is older than the window
    got = fetch("git:.", SourceCache(tmp_path / "c"), root=ci, window=timedelta(hours=12), facets=("commits",))
    assert got.facets["commits"] == []


def test_a_linked_worktree_of_a_shallow_clone_is_read_and_reported(upstream: Path, tmp_path: Path) -> None:
    ci = _clone(upstream, tmp_path / "ci", "--depth", "1")
    git(ci, "remote", "remove", "origin")
    git(ci, "worktree", "add", "-q", str(tmp_path / "wt"))
    got = fetch("git:.", SourceCache(tmp_path / "c"), root=tmp_path / "wt", window=YEAR, facets=("commits",))
    assert got.facets["commits"][0]["truncated"]["why"] == gitshallow.NO_REMOTE
    assert _subjects(got.facets["commits"]) == ["Change 39"]
