"""A repository holding every odd contract shape at once: no command exits 3, hangs or prints a
traceback; each broken file is reported with its code and place, and the good contracts keep working."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .corpus_odd import GOOD_NAMES, SHAPES, SPECIAL, VALID, write_corpus, write_odd_names

FOLDER = "workflows"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("odd") / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write_corpus(root / FOLDER)
    write_odd_names(root / FOLDER)
    return root


def hz(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess, so a FIFO that blocked a read would show as a timeout."""
    return subprocess.run(
        [sys.executable, "-m", "hz", *argv], cwd=root, capture_output=True, text=True, timeout=180, check=False
    )


def assert_clean_exit(result: subprocess.CompletedProcess[str], *allowed: int) -> None:
    output = result.stdout + result.stderr
    assert result.returncode in allowed, output[-2000:]
    assert "Traceback" not in output and "hz hit a bug" not in output, output[-2000:]


def test_the_corpus_is_large_and_varied(corpus: Path) -> None:
    entries = list((corpus / FOLDER).iterdir())
    assert len(SHAPES) + len(SPECIAL) >= 60
    assert len(entries) >= 60
    assert any(p.is_fifo() for p in entries) and any(p.is_dir() for p in entries)
    assert any(p.is_symlink() for p in entries)


def test_migrate_reports_every_broken_file_with_its_code_and_adopts_the_good_ones(corpus: Path) -> None:
    result = hz(corpus, "workflow", "migrate")
    assert_clean_exit(result, 1)
    placed = set(re.findall(rf"^{FOLDER}/(.+?)\.prose\.md:\d+:\d+  HZC\d{{3}}  ", result.stderr, re.MULTILINE))
    broken = (set(SHAPES) | set(SPECIAL)) - VALID - {"directory"}  # a folder is not a contract file
    assert sorted(broken - placed) == []
    assert not placed & (VALID | set(GOOD_NAMES))
    assert "hint: " in result.stderr
    for name in (*GOOD_NAMES, *sorted(VALID)):
        assert f"{FOLDER}/{name}.prose.md: schema 1, up to date" in result.stdout
    for name in GOOD_NAMES:
        assert f"team:{name}: Heinzelmännchen created" in result.stderr
    assert "team:outside" not in result.stderr  # a committed link out of the repository is never read
    assert "team:odd-name" not in result.stderr  # files whose name differs from their `name` (HZC010)
    assert "cannot migrate" not in result.stderr  # every problem has its code, place and hint


@pytest.mark.parametrize(
    "argv",
    [
        ("workflow", "validate"),
        ("workflow", "list"),
        ("graph",),
        ("codeowners", "--check"),
        ("source", "list"),
        ("workflow", "show", "good-one"),
        ("workflow", "show", "window-huge-weeks"),
    ],
    ids=" ".join,
)
def test_no_command_breaks_on_the_corpus(corpus: Path, argv: tuple[str, ...]) -> None:
    assert_clean_exit(hz(corpus, *argv), 0, 1)


def test_validate_json_names_every_broken_file_and_none_of_the_good(corpus: Path) -> None:
    result = hz(corpus, "workflow", "validate", "--json")
    assert_clean_exit(result, 1)
    errors = {
        Path(d["path"]).name.removesuffix(".prose.md") for d in json.loads(result.stdout) if d["severity"] == "error"
    }
    assert not errors & (VALID | set(GOOD_NAMES))
    assert "caf\\xe9" in errors  # a name that is not UTF-8 is reported, escaped, never printed raw


def test_one_good_file_validates_clean_beside_the_corpus(corpus: Path) -> None:
    result = hz(corpus, "workflow", "validate", f"{FOLDER}/good-one.prose.md")
    assert_clean_exit(result, 0)
    assert result.stdout == "1 contract checked: no problems\n"


def test_the_good_contracts_are_enabled_in_the_graph(corpus: Path) -> None:
    result = hz(corpus, "graph")
    assert_clean_exit(result, 0, 1)
    for name in GOOD_NAMES:
        line = next(line for line in result.stdout.splitlines() if line.endswith(f"team:{name}"))
        assert "disabled" not in line


def test_tick_runs_beside_the_corpus(corpus: Path) -> None:
    assert_clean_exit(hz(corpus, "tick"), 0, 1)
