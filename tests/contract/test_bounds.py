"""Numbers, durations and counts beyond sane limits are a clear HZC code at their place, and one file's
problem never breaks another file's validate, show, graph or migrate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hz.contract.load import load_text

from .samples import GOOD, line_of, variant

ABSURD: list[tuple[str, str, str]] = [
    ("window: 7d", "window: 99999999999w", "HZC002"),
    ("window: 7d", "window: " + "9" * 5000 + "w", "HZC002"),
    ("window: 7d", "window: " + "9" * 5000, "HZC001"),
    ("window: 7d", "window: 1e400", "HZC002"),
    ("schema: 1", "schema: " + "9" * 4000, "HZC003"),
    ('"0 8 * * MON"', '"0 8 31 2 *"', "HZC011"),
    ("facets: [summary, changes]", "facets: [" + ", ".join(f"f{n}" for n in range(101)) + "]", "HZC002"),
    ("  inputs:\n", "  inputs:\n" + "".join(f"    i{n}: {{source: 'git:.'}}\n" for n in range(101)), "HZC002"),
]


@pytest.mark.parametrize(("old", "new", "code"), ABSURD, ids=[f"{n[:24]}" for _, n, _ in ABSURD])
def test_an_absurd_value_is_a_code_at_its_line(old: str, new: str, code: str) -> None:
    text = variant(old, new)
    first = load_text(text).diagnostics[0]
    assert first.code == code
    where = new.split("\n")[1] if new.startswith("  inputs:") else new  # a mapping is placed at its first key
    assert first.line == line_of(where.strip()[:20], text)
    assert len(first.message) < 300, first.message  # never thousands of digits echoed back
    assert first.hint


def test_a_schedule_that_fires_once_in_four_years_is_fine() -> None:
    assert load_text(variant('"0 8 * * MON"', '"0 8 29 2 *"')).ok


@pytest.fixture
def two(repo: Path) -> Path:
    (repo / "workflows").mkdir()
    (repo / "workflows" / "good.prose.md").write_text(GOOD.replace("weekly-digest", "good"))
    broken = variant("window: 7d", "window: 99999999999w").replace("weekly-digest", "bad")
    (repo / "workflows" / "bad.prose.md").write_text(broken)
    return repo


def test_one_bad_file_never_breaks_another(two: Path, hz: Any) -> None:
    assert hz("workflow", "validate", "workflows/good.prose.md").exit_code == 0
    assert hz("workflow", "show", "good").exit_code == 0
    assert json.loads(hz("workflow", "show", "--json", "good").out)["ok"] is True
    graph = hz("graph")
    assert graph.exit_code == 0 and "team:good" in graph.out
    bad = hz("workflow", "validate", "workflows/bad.prose.md")
    assert bad.exit_code == 1 and "HZC002  hz.inputs.commits.window" in bad.out


def test_migrate_adopts_the_good_file_and_reports_the_bad_one(two: Path, hz: Any) -> None:
    result = hz("workflow", "migrate")
    assert result.exit_code == 1
    assert "workflows/bad.prose.md:15:15  HZC002  hz.inputs.commits.window" in result.err
    assert "team:good: Heinzelmännchen created" in result.err
    assert "team:bad" not in result.err
    assert "workflows/good.prose.md: schema 1, up to date" in result.out
