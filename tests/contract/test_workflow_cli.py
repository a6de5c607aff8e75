"""`hz workflow …` end to end, in process, inside real git repositories."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hz.contract.load import load_contract
from hz.contract.project import compile_repository

from .samples import GOOD, variant

ROOT = Path(__file__).resolve().parents[2]


def _built_ins() -> int:
    return len(list((ROOT / "hz" / "workflows").glob("*.prose.md")))


@pytest.fixture
def team(repo: Path) -> Path:
    (repo / "workflows").mkdir()
    (repo / "workflows" / "weekly-digest.prose.md").write_text(GOOD)
    return repo


def test_this_repositorys_own_contracts_validate_clean() -> None:
    compiled = compile_repository(ROOT, {"HZ_CONFIG_HOME": str(ROOT / "no-such-dir")})
    team = [c for c in compiled.contracts if c.layer == "team"]
    assert compiled.diagnostics == ()
    assert len(team) >= 3
    assert all(c.enabled and c.contract is not None for c in team)
    assert any(c.height > 0 for c in team), "one example depends on another through contract:"


def test_validate_clean_repository(team: Path, hz: Any) -> None:
    result = hz("workflow", "validate")
    # the team contract and the built-in ones shipped with hz
    assert (result.exit_code, result.out) == (0, f"{1 + _built_ins()} contracts checked: no problems\n")


def test_validate_reports_a_broken_file_and_exits_1(team: Path, hz: Any) -> None:
    (team / "workflows" / "weekly-digest.prose.md").write_text(variant("window: 7d", "window: soon"))
    result = hz("workflow", "validate", "workflows/weekly-digest.prose.md")
    assert result.exit_code == 1
    assert result.out == (
        "workflows/weekly-digest.prose.md:15:15  HZC002  hz.inputs.commits.window\n"
        "  'soon' is not a duration: a whole number and one of s, m, h, d, w (such as 15m or 7d)\n"
        "  hint: write a whole number and a unit: 30s, 15m, 2h, 7d or 1w\n"
        "1 contract checked: 1 error\n"
    )


def test_validate_json(team: Path, hz: Any) -> None:
    (team / "workflows" / "weekly-digest.prose.md").write_text(variant("### Done when", "### Criteria"))
    result = hz("workflow", "validate", "--json", "workflows")
    assert result.exit_code == 1
    found = json.loads(result.out)
    assert [(d["code"], d["line"], d["severity"]) for d in found] == [("HZC107", 21, "error"), ("HZC106", 44, "error")]
    assert set(found[0]) == {"path", "line", "column", "code", "severity", "loc", "message", "hint"}


def test_validate_a_file_outside_any_repository(tmp_path: Path, hz: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "weekly-digest.prose.md").write_text(variant('"git:log"', '"gdoc:abc"'))
    result = hz("workflow", "validate", "weekly-digest.prose.md")
    assert result.exit_code == 1
    assert result.out.splitlines()[0] == "weekly-digest.prose.md:14:15  HZC015  hz.inputs.commits.source"
    assert result.out.splitlines()[-1] == "1 contract checked: 1 error"


def test_validate_missing_path(team: Path, hz: Any) -> None:
    result = hz("workflow", "validate", "nowhere.prose.md")
    assert (result.exit_code, result.err) == (
        1,
        "error: no such file or directory: nowhere.prose.md\n  hint: pass contract files or directories\n",
    )


def test_list_and_tags(team: Path, hz: Any) -> None:
    result = hz("workflow", "list")
    assert result.exit_code == 0
    table = [re.split(r"\s{2,}", line) for line in result.out.splitlines()]
    assert table[0] == ["NAME", "LAYER", "SCOPE", "OWNER", "STATE", "TITLE"]
    assert ["team:weekly-digest", "team", "team", "@hz-maintainer", "enabled", "Weekly change digest"] in table
    column = result.out.index("LAYER")  # every row's second column starts under the header's
    assert all(line[column - 2 : column] == "  " and line[column] != " " for line in result.out.splitlines())
    assert hz("workflow", "list", "--tag", "nothing").out == "no contracts tagged nothing\n"
    rows = [r for r in json.loads(hz("workflow", "list", "--json").out) if r["layer"] == "team"]
    assert rows == [
        {
            "qualified_name": "team:weekly-digest",
            "layer": "team",
            "path": "workflows/weekly-digest.prose.md",
            "valid": True,
            "enabled": True,
            "height": 0,
            "title": "Weekly change digest",
            "description": "Keeps a weekly digest of what changed in this repository, for people who missed the week.",
            "owner": "@hz-maintainer",
            "scope": "team",
            "tags": [],
        }
    ]


def test_show_json_has_every_fingerprint(team: Path, hz: Any) -> None:
    result = hz("workflow", "show", "weekly-digest", "--json")
    assert result.exit_code == 0
    data = json.loads(result.out)
    contract = load_contract(team / "workflows" / "weekly-digest.prose.md").contract
    assert contract is not None
    assert data["qualified_name"] == "team:weekly-digest"
    assert data["layer"] == "team"
    assert data["fingerprints"] == {
        "contract": contract.contract_fingerprint,
        "source": contract.source_fingerprint,
        "sections": dict(contract.section_fingerprints),
    }
    assert list(data["sections"]) == ["goal", "requires", "maintains", "done when"]
    assert data["sections"]["maintains"]["items"]["digest"]["facets"] == ["summary", "changes"]
    assert data["frontmatter"]["hz"]["timeout"] == "15m"


def test_show_text(team: Path, hz: Any) -> None:
    lines = hz("workflow", "show", "team:weekly-digest").out.splitlines()
    assert lines[:4] == [
        "team:weekly-digest  Weekly change digest",
        "  layer: team  path: workflows/weekly-digest.prose.md  height: 0",
        "  state: enabled",
        "  owner: @hz-maintainer  scope: team",
    ]


def test_new_writes_a_clean_skeleton_with_a_fresh_id(repo: Path, hz: Any) -> None:
    result = hz("workflow", "new", "team-pulse", "--owner", "@someone")
    path = repo / "workflows" / "team-pulse.prose.md"
    assert (result.exit_code, result.out) == (0, f"wrote {path}\n")
    loaded = load_contract(path)
    assert loaded.diagnostics == ()
    assert loaded.contract is not None
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", loaded.contract.frontmatter.id or "")
    other = hz("workflow", "new", "team-pulse-2", "--owner", "@someone")
    assert other.exit_code == 0
    second = load_contract(repo / "workflows" / "team-pulse-2.prose.md").contract
    assert second is not None and second.frontmatter.id != loaded.contract.frontmatter.id
    assert hz("workflow", "validate").out == f"{2 + _built_ins()} contracts checked: no problems\n"
    again = hz("workflow", "new", "team-pulse")
    assert (again.exit_code, again.err) == (
        1,
        f"error: {path} already exists\n  hint: pick another name, or edit the existing contract\n",
    )


def test_new_refuses_a_bad_name(repo: Path, hz: Any) -> None:
    result = hz("workflow", "new", "Bad--Name")
    assert (result.exit_code, result.err) == (
        1,
        "error: 'Bad--Name' is not a contract name\n  hint: use lowercase letters, digits and single dashes\n",
    )


def test_migrate_reports_current_and_too_new(team: Path, hz: Any) -> None:
    assert hz("workflow", "migrate").out == "workflows/weekly-digest.prose.md: schema 1, up to date\n"
    (team / "workflows" / "future.prose.md").write_text(variant("schema: 1", "schema: 9"))
    result = hz("workflow", "migrate", "--write")
    assert result.exit_code == 1
    assert result.err == (
        "workflows/future.prose.md:6:11  HZC003  frontmatter\n"
        "  hz.schema is 9, but this hz reads schema 1 at most\n"
        "  hint: this contract was written for a newer hz: upgrade hz, then run the command again\n"
        "fix the files above, then run `hz workflow migrate` again\n"
    )


def test_export_prose_folds_done_when_and_drops_hz(team: Path, hz: Any) -> None:
    result = hz("workflow", "export", "--prose", "weekly-digest")
    assert result.exit_code == 0
    assert "hz:" not in result.out
    assert "### Done when" not in result.out
    assert result.out.endswith(
        "#### changes\n\nMaterial: one line per commit.\n\n"
        "Postconditions:\n\n- [ ] every commit of the week appears once\n"
    )
    assert result.out.startswith("---\nname: weekly-digest\nkind: responsibility\ndescription: Keeps")


def test_export_needs_prose(team: Path, hz: Any) -> None:
    assert hz("workflow", "export", "weekly-digest").exit_code == 2


def test_a_broken_contract_is_listed_as_invalid_and_show_explains(team: Path, hz: Any) -> None:
    (team / "workflows" / "broken.prose.md").write_text(
        variant("name: weekly-digest", "name: broken").replace("### Done when", "### Criteria")
    )
    rows = json.loads(hz("workflow", "list", "--json").out)
    assert [(r["qualified_name"], r["valid"], r["enabled"]) for r in rows if r["layer"] == "team"] == [
        ("team:broken", False, False),
        ("team:weekly-digest", True, True),
    ]
    result = hz("workflow", "show", "broken")
    assert result.exit_code == 1
    assert result.out.splitlines()[0] == "workflows/broken.prose.md:21:1  HZC107  ### Done when"


def test_show_an_unknown_name(team: Path, hz: Any) -> None:
    result = hz("workflow", "show", "nope")
    assert (result.exit_code, result.err) == (
        1,
        "error: no contract named 'nope' in any layer\n  hint: `hz workflow list` shows every contract\n",
    )


def test_new_takes_the_configured_handle(repo: Path, hz: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HZ_HANDLE", "octo-cat")
    assert hz("workflow", "new", "pulse").exit_code == 0
    contract = load_contract(repo / "workflows" / "pulse.prose.md").contract
    assert contract is not None
    assert contract.frontmatter.hz.owner == "@octo-cat"


def test_outside_a_repository_the_listing_needs_one(tmp_path: Path, hz: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = hz("workflow", "list")
    assert result.exit_code == 1
    assert result.err.startswith(f"error: not inside a git repository: {tmp_path.resolve()}\n")
