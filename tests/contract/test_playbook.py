"""The playbook of discovery hints: a strict schema, diagnostics at the offending node, `hz workflow validate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hz.contract.playbook import Hint, load_playbook
from hz.diagnostic import Diagnostic

GOOD = """\
hints:
  - name: incidents
    match: "file:docs/incidents/*.md"
    for: [incident-digest, tag:ops]
    why: incident write-ups
  - name: runbooks
    match: file:ops/**/*.md
    why: the team's runbooks
"""
FIX = "fix workflows/_playbook.yaml; until then no hint proposes anything"


def write(root: Path, text: str) -> None:
    (root / "workflows").mkdir(exist_ok=True)
    (root / "workflows" / "_playbook.yaml").write_text(text)


def test_a_good_playbook_gives_its_hints_in_file_order(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    hints, problems = load_playbook(tmp_path)
    assert problems == []
    assert hints == (
        Hint("incidents", "file", "docs/incidents/*.md", ("incident-digest", "tag:ops"), "incident write-ups"),
        Hint("runbooks", "file", "ops/**/*.md", None, "the team's runbooks"),
    )
    assert hints[0].applies("incident-digest", ()) and hints[0].applies("other", ("ops",))
    assert not hints[0].applies("other", ("dev",))
    assert hints[1].applies("anything", ())


def test_no_playbook_is_no_hints_and_no_problem(tmp_path: Path) -> None:
    assert load_playbook(tmp_path) == ((), [])


def problem(line: int, column: int, loc: str, message: str, code: str = "HZC020") -> Diagnostic:
    return Diagnostic("workflows/_playbook.yaml", line, column, code, "error", loc, message, FIX)


BROKEN: list[tuple[str, str, Diagnostic]] = [
    ("unknown-top", GOOD + "extra: 1\n", problem(9, 1, "extra", "unknown key 'extra': a playbook holds only `hints:`")),
    (
        "misspelt-key",
        GOOD.replace("    for: [", "    fro: ["),
        problem(4, 5, "hints[0].fro", "unknown key 'fro': a hint has name, match, for, why"),
    ),
    (
        "other-scheme",
        GOOD.replace("file:ops/**/*.md", "github:acme/ops"),
        problem(7, 12, "hints[1].match", "hints can match only file: sources for now"),
    ),
    (
        "parent-dir",
        GOOD.replace("file:ops/**/*.md", "file:../ops/*.md"),
        problem(7, 12, "hints[1].match", "the path must be relative to the repository root, without `..` or `.git`"),
    ),
    (
        "absolute",
        GOOD.replace("file:ops/**/*.md", "file:/etc/*"),
        problem(7, 12, "hints[1].match", "the path must be relative to the repository root, without `..` or `.git`"),
    ),
    (
        "bad-tag",
        GOOD.replace("tag:ops", "team:ops"),
        problem(4, 28, "hints[0].for[1]", "'team:ops' is neither a contract name nor a tag written tag:<tag>"),
    ),
    (
        "twice",
        GOOD.replace("name: runbooks", "name: incidents"),
        problem(6, 11, "hints[1].name", "hint name 'incidents' is used twice; names are unique"),
    ),
    (
        "two-lines",
        GOOD.replace("why: the team's runbooks", 'why: "one\\ntwo"'),
        problem(8, 10, "hints[1].why", "`why` must be one line of at most 200 characters"),
    ),
    (
        "missing-why",
        GOOD.replace("    why: the team's runbooks\n", ""),
        problem(6, 5, "hints[1]", "the hint lacks `why`"),
    ),
    ("not-a-list", "hints: file:docs/*.md\n", problem(1, 8, "hints", "`hints:` must be a list of hints")),
    (
        "duplicate-key",
        GOOD.replace("    why: incident write-ups\n", "    why: incident write-ups\n    why: again\n"),
        problem(
            6,
            5,
            "playbook",
            'found duplicate key "why" with value "again" (original value: "incident write-ups"); '
            "YAML keys must be unique, and hz never lets a later one win",
            code="HZC004",
        ),
    ),
]


@pytest.mark.parametrize(("label", "text", "expected"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_playbook_is_one_diagnostic_at_its_node_and_no_hints(
    tmp_path: Path, label: str, text: str, expected: Diagnostic
) -> None:
    write(tmp_path, text)
    assert load_playbook(tmp_path) == ((), [expected])


def test_every_problem_is_reported_in_file_order(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace("    why: incident", "    wy: incident"))
    assert load_playbook(tmp_path) == (
        (),
        [
            problem(2, 5, "hints[0]", "the hint lacks `why`"),
            problem(5, 5, "hints[0].wy", "unknown key 'wy': a hint has name, match, for, why"),
        ],
    )


def test_workflow_validate_reports_the_playbook(repo: Path, hz: Any) -> None:
    write(repo, GOOD.replace("name: runbooks", "name: Runbooks"))
    result = hz("workflow", "validate")
    assert (result.exit_code, result.out) == (
        1,
        "workflows/_playbook.yaml:6:11  HZC020  hints[1].name\n"
        "  `name` must be a slug: lower-case words joined by hyphens\n"
        f"  hint: {FIX}\n"
        "1 contract checked: 1 error\n",
    )
    write(repo, GOOD)
    assert hz("workflow", "validate").out == "1 contract checked: no problems\n"
