"""`hz workflow show --json` prints JSON in every case: a valid contract, an invalid one, an unknown name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .samples import GOOD, variant


@pytest.fixture
def team(repo: Path) -> Path:
    (repo / "workflows").mkdir()
    (repo / "workflows" / "weekly-digest.prose.md").write_text(GOOD)
    return repo


def test_a_valid_contract(team: Path, hz: Any) -> None:
    result = hz("workflow", "show", "--json", "weekly-digest")
    shown = json.loads(result.out)
    assert (result.exit_code, shown["ok"], shown["qualified_name"]) == (0, True, "team:weekly-digest")
    assert shown["diagnostics"] == []


def test_an_invalid_contract_is_a_json_object_with_its_diagnostics(team: Path, hz: Any) -> None:
    (team / "workflows" / "weekly-digest.prose.md").write_text(variant("window: 7d", "window: 99999999999w"))
    result = hz("workflow", "show", "--json", "weekly-digest")
    assert result.exit_code == 1
    shown = json.loads(result.out)
    assert (shown["ok"], shown["qualified_name"], shown["path"]) == (
        False,
        "team:weekly-digest",
        "workflows/weekly-digest.prose.md",
    )
    [problem] = shown["diagnostics"]
    assert (problem["code"], problem["line"], problem["loc"]) == ("HZC002", 15, "hz.inputs.commits.window")
    assert problem["hint"]


def test_an_unreadable_contract_is_json_too(team: Path, hz: Any) -> None:
    (team / "workflows" / "weekly-digest.prose.md").write_bytes(GOOD.encode("utf-16"))
    shown = json.loads(hz("workflow", "show", "--json", "weekly-digest").out)
    assert [d["code"] for d in shown["diagnostics"]] == ["HZC001"]


def test_an_unknown_name_is_a_json_error(team: Path, hz: Any) -> None:
    result = hz("workflow", "show", "--json", "nope")
    shown = json.loads(result.out)
    assert result.exit_code == 1
    assert shown["ok"] is False and "nope" in shown["error"] and shown["hint"]


def test_outside_a_repository_is_a_json_error(tmp_path: Path, hz: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = hz("workflow", "show", "--json", "weekly-digest")
    assert result.exit_code == 1
    assert "not inside a git repository" in json.loads(result.out)["error"]


def test_text_output_is_unchanged_for_an_invalid_contract(team: Path, hz: Any) -> None:
    (team / "workflows" / "weekly-digest.prose.md").write_text(variant("window: 7d", "window: soon"))
    result = hz("workflow", "show", "weekly-digest")
    assert result.exit_code == 1
    assert result.out.startswith("workflows/weekly-digest.prose.md:15:15  HZC002  hz.inputs.commits.window\n")
