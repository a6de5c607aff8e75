"""The repository's path rule (`hz.repo_paths`) and HZC021, the code validation reports it with."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from hz.contract.project import compile_repository
from hz.repo_paths import Role, problem

from .samples import GOOD, variant

TARGET = "state:reports/digest/{slot:%G-W%V}.md"
INSIDE = "name a file inside the repository, relative to its root, such as docs/notes.md"
GIT = "names .git, which hz never reads or writes"
CHARS = "holds a backslash, a NUL, a control or an invisible character"
STEERING = "is a git control file (.gitmodules, .gitattributes) that changes what git runs; hz never drafts one"
GITHUB = "is under .github/, where a drafted workflow would run in Actions before anyone approves it"

# (path, role, the reason it is refused for, or None when the rule keeps it)
CASES: list[tuple[str, Role, str | None]] = [
    ("docs/a.md", "target", None),
    ("docs/*.md", "input", None),
    ("**/*.md", "input", None),
    ("notes/ünïcode and spaces.md", "target", None),
    (".gitignore", "target", None),
    (".github/workflows/ci.yml", "input", None),
    (".github/workflows/ci.yml", "target", None),  # a personal draft stays in its owner's working tree
    (".gitmodules", "input", None),
    ("", "target", "is empty"),
    ("/etc/passwd", "input", "is absolute; hz reads and writes only inside the repository"),
    ("C:/Windows/x", "target", "is absolute; hz reads and writes only inside the repository"),
    ("../x.md", "input", "goes up with '..'"),
    ("docs/../../x.md", "target", "goes up with '..'"),
    ("docs/../a.md", "target", "goes up with '..'"),
    (".git/config", "input", GIT),
    (".GIT/config", "target", GIT),
    (".Git/", "target", GIT),
    ("x/../.git", "target", GIT),
    ("sub/.git/config", "input", GIT),
    (".git./config", "target", GIT),
    (".git /config", "target", GIT),
    ("GIT~1/config", "target", GIT),
    (".git::$INDEX_ALLOCATION/config", "target", GIT),
    ("a\\b.md", "target", CHARS),
    ("a\x00b.md", "input", CHARS),
    ("a\nb.md", "target", CHARS),
    (".g\u200cit/config", "target", CHARS),  # HFS+ ignores the joiner: it would be .git there
    ("report\u202egnp.md", "target", CHARS),
    ("a//b.md", "target", "has an empty or '.' part"),
    ("./a.md", "input", "has an empty or '.' part"),
    ("docs/", "target", "has an empty or '.' part"),
    (".gitmodules", "target", STEERING),
    ("lib/.GitAttributes", "team-target", STEERING),
    (".gitattributes.", "target", STEERING),
    (".github/workflows/x.yml", "team-target", GITHUB),
    (".GitHub/x.md", "team-target", GITHUB),
    ("docs/.github/x.md", "team-target", None),  # only the repository's own .github/ runs anything
]


@pytest.mark.parametrize(("path", "role", "reason"), CASES)
def test_the_rule(path: str, role: Role, reason: str | None) -> None:
    found = problem(path, role)
    assert (found.reason if found else None) == reason


@pytest.fixture
def team(repo: Path) -> Path:
    (repo / "workflows").mkdir()
    return repo


def _write(root: Path, text: str) -> None:
    (root / "workflows" / "weekly-digest.prose.md").write_text(text)


def test_validate_names_a_team_workflow_target_with_its_place(team: Path, hz: Any) -> None:
    _write(team, variant(TARGET, "state:.github/workflows/{slot:%G}.yml"))
    result = hz("workflow", "validate", "workflows/weekly-digest.prose.md")
    assert (result.exit_code, result.out) == (
        1,
        "workflows/weekly-digest.prose.md:18:15  HZC021  hz.outputs.digest.target\n"
        f"  the target 'state:.github/workflows/{{slot:%G}}.yml' {GITHUB}\n"
        "  hint: draft somewhere else; change .github/ by hand in a reviewed pull request\n"
        "1 contract checked: 1 error\n",
    )


def test_validate_names_a_file_input_into_git(team: Path, hz: Any) -> None:
    text = variant(
        'source: "git:log"', 'source: ["git:log", "file:.git/config"]', variant("scope: team", "scope: personal")
    )
    _write(team, text)
    result = hz("workflow", "validate", "--json", "workflows/weekly-digest.prose.md")
    assert result.exit_code == 1
    assert [d for d in json.loads(result.out) if d["code"] == "HZC021"] == [
        {
            "path": "workflows/weekly-digest.prose.md",
            "line": 14,
            "column": 27,
            "code": "HZC021",
            "severity": "error",
            "loc": "hz.inputs.commits.source[1]",
            "message": f"the input 'file:.git/config' {GIT}",
            "hint": "name a file outside .git",
        }
    ]


def test_a_slot_placeholder_cannot_smuggle_a_path_in(team: Path, hz: Any) -> None:
    _write(team, variant(TARGET, "state:reports/{slot:..}/{slot:.git}/x.md"))
    result = hz("workflow", "validate")
    assert result.exit_code == 1
    assert "HZC021  hz.outputs.digest.target\n  the target 'state:reports/{slot:..}/{slot:.git}/x.md' names .git" in (
        result.out
    )


def test_a_committed_link_into_git_is_refused_at_validation(team: Path) -> None:
    (team / "docs").mkdir()
    os.symlink("../.git", team / "docs" / "x")
    _write(team, variant(TARGET, "state:docs/x/config"))
    compiled = compile_repository(team, os.environ)
    problems = [d for d in compiled.diagnostics if d.code == "HZC021"]
    assert [d.render() for d in problems] == [
        "workflows/weekly-digest.prose.md:18:15  HZC021  hz.outputs.digest.target\n"
        "  the target 'state:docs/x/config' passes through the link docs/x\n"
        "  hint: name the file itself, not a link to it"
    ]
    assert compiled.get("weekly-digest").enabled is False


def test_a_clean_target_compiles(team: Path) -> None:
    _write(team, GOOD)
    compiled = compile_repository(team, os.environ)
    assert [d for d in compiled.diagnostics if d.code == "HZC021"] == []
    assert compiled.get("weekly-digest").enabled is True
