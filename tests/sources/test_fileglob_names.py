"""`file:` globs over names that are not UTF-8: carried escaped, never a crash, fingerprints order-free."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hz.sources.cache import SourceCache
from tests.sources.helpers import fetch, new_repo

Hz = Callable[..., Any]
LATIN = os.fsdecode(b"caf\xe9.md")  # the name as Python hands it over: byte 0xE9 as U+DCE9


def _files(root: Path, names: list[str]) -> Path:
    new_repo(root)
    for name in names:
        (root / name).write_text(f"text of {name.encode('utf-8', 'surrogateescape')!r}\n")
    return root


def test_a_glob_carries_a_latin1_name_escaped(tmp_path: Path, cache: SourceCache) -> None:
    repo = _files(tmp_path / "repo", ["a.md", LATIN])
    result = fetch("file:*.md", cache, root=repo)
    assert result.facets["paths"] == ["a.md", "caf\\xe9.md"]
    assert result.facets["text"]["caf\\xe9.md"] == "text of b'caf\\xe9.md'"


def test_escaped_names_fingerprint_alike_whatever_order_the_files_came_in(tmp_path: Path) -> None:
    one = _files(tmp_path / "one", ["a.md", LATIN, "b.md"])
    two = _files(tmp_path / "two", ["b.md", LATIN, "a.md"])
    first = fetch("file:*.md", SourceCache(tmp_path / "c1"), root=one)
    second = fetch("file:*.md", SourceCache(tmp_path / "c2"), root=two)
    assert first.fingerprints == second.fingerprints


def test_a_name_that_reads_like_another_escaped_is_skipped_not_shadowing(tmp_path: Path, cache: SourceCache) -> None:
    repo = _files(tmp_path / "repo", ["caf\\xe9.md", LATIN])
    result = fetch("file:*.md", cache, root=repo)
    assert result.facets["text"] == {"caf\\xe9.md": "text of b'caf\\\\xe9.md'"}
    assert list(result.facets["skipped"]) == ["caf\\xe9.md (another file)"]


def test_a_non_utf8_argument_is_an_error_not_a_crash(repo: Path, hz: Hz) -> None:
    for argv, said in (
        (("source", "fetch", f"file:{LATIN}"), "the source or contract 'file:caf\\xe9.md'"),
        (("source", "fetch", "git:.", "--query", f"path:{LATIN}"), "--query 'path:caf\\xe9.md'"),
        (("source", "diff", LATIN), "the contract 'caf\\xe9.md'"),
    ):
        result = hz(*argv)
        assert (result.exit_code, result.err.splitlines()[0]) == (1, f"error: {said} is not UTF-8 text")
