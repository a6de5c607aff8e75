"""Every stage-1 and stage-2 code has a failing fixture; each test asserts the code and its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from hz.contract.load import load_contract, load_text
from hz.diagnostic import Diagnostic

from .samples import GOOD, line_of, variant

GOAL = "The digest for the past ISO week lists every change merged to main."
REQUIRES_ITEM = "- `commits`: the commits on main in the past seven days.\n"
DONE = "### Done when\n\n- [ ] every commit of the week appears once\n"

# The embedded form, whose YAML may carry a directive: under YAML 1.1 `on` would be the boolean true.
EMBEDDED_11 = "```yaml\n%YAML 1.1\n---\n" + GOOD[4:].replace("\n---\n", "\n```\n", 1)
NO_WAKE = variant(
    '  schedule: "0 8 * * MON"\n  on: [commits]\n  inputs:\n    commits:\n      source: "git:log"\n      window: 7d\n',
    "",
    variant("### Requires\n\n" + REQUIRES_ITEM + "\n", ""),
)

# (id, text, code, fragment whose line the diagnostic must name, column or None)
CASES: list[tuple[str, str, str, str, int | None]] = [
    ("no-frontmatter", "# Digest\n\n### Goal\n\nIt is current.\n", "HZC001", "# Digest", 1),
    ("unclosed-frontmatter", "---\nname: weekly-digest\n", "HZC001", "---", 1),
    ("bad-yaml", variant("title: Weekly change digest", "title: [Weekly"), "HZC001", "  owner:", None),
    ("not-a-mapping", "---\n- just\n- a list\n---\n\n### Goal\n", "HZC001", "- just", 1),
    ("owner-handle", variant('owner: "@hz-maintainer"', "owner: hz-maintainer"), "HZC002", "  owner:", 10),
    ("unknown-key", variant("  scope: team\n", "  scope: team\n  titel: x\n"), "HZC002", "  titel", 3),
    ("missing-title", variant("  title: Weekly change digest\n", ""), "HZC002", "  schema: 1", 3),
    ("bad-duration", variant("window: 7d", "window: 7 days"), "HZC002", "window:", 15),
    ("bad-kind", variant("kind: responsibility", "kind: gateway"), "HZC002", "kind:", 7),
    (
        "publish-output",
        variant("  outputs:", "  publishes:\n    - {action: a.b.c, output: nope, target: x:y}\n  outputs:"),
        "HZC002",
        "nope",
        31,
    ),
    ("schema-too-new", variant("schema: 1", "schema: 7"), "HZC003", "schema: 7", 11),
    (
        "duplicate-key",
        variant("  scope: team\n", "  scope: team\n  scope: personal\n"),
        "HZC004",
        "  scope: personal",
        3,
    ),
    ("non-string-key", variant("  scope: team\n", "  scope: team\n  1: one\n"), "HZC004", "  1: one", 3),
    ("yaml-1.1-on", EMBEDDED_11, "HZC004", "  on:", 3),
    ("bad-cron", variant('"0 8 * * MON"', '"0 8 * *"'), "HZC011", "schedule:", 13),
    ("bad-zone", variant('"0 8 * * MON"', '{cron: "0 8 * * MON", tz: Mars/Olympus}'), "HZC011", "schedule:", None),
    ("wake-unknown-input", variant("on: [commits]", "on: [commits, issues]"), "HZC016", "on: [", 17),
    (
        "wake-unknown-facet",
        variant(
            "      window: 7d\n",
            "      window: 7d\n      facets: [merged]\n",
            variant("on: [commits]", "on: [commits.authors]"),
        ),
        "HZC016",
        "on: [",
        8,
    ),
    ("target-into-git", variant("reports/digest/{slot:%G-W%V}.md", ".Git/hooks/post-commit"), "HZC021", "target:", 15),
    ("goal-missing", variant("### Goal\n\n" + GOAL + "\n\n", ""), "HZC101", "\n# Weekly", 1),
    ("goal-empty", variant(GOAL + "\n", "<!-- later -->\n"), "HZC101", "### Goal", 1),
    ("requires-missing-item", variant(REQUIRES_ITEM, "- commits in general\n"), "HZC103", "### Requires", 1),
    (
        "requires-extra-item",
        variant(REQUIRES_ITEM, REQUIRES_ITEM + "- `issues`: open issues.\n"),
        "HZC103",
        "- `issues`",
        1,
    ),
    ("maintains-missing", variant("- `digest`: a short Markdown page.\n", ""), "HZC103", "### Maintains", 1),
    ("facets-differ", variant("#### changes", "#### commits"), "HZC104", "- `digest`", 1),
    ("retired-section", variant(DONE, DONE + "\n### Criteria\n\nIt reads well.\n"), "HZC106", "### Criteria", 1),
    ("retired-execution", variant(DONE, DONE + "\n## Execution\n\nrun it\n"), "HZC106", "## Execution", 1),
    ("done-when-missing", variant(DONE, ""), "HZC107", "\n# Weekly", 1),
    ("done-when-empty", variant(DONE, "### Done when\n\nWhen it is done.\n"), "HZC107", "### Done when", 1),
]

WARNINGS: list[tuple[str, str, str, str]] = [
    ("no-wake-source", NO_WAKE, "HZC019", "hz:"),
    ("goal-two-sentences", variant(GOAL, GOAL + " It is short."), "HZC102", "### Goal"),
    ("goal-imperative", variant(GOAL, "Write the digest for the week."), "HZC102", "### Goal"),
    ("unknown-section", variant(DONE, DONE + "\n### Notes\n\nSome notes.\n"), "HZC105", "### Notes"),
    ("duplicate-section", variant(DONE, DONE + "\n### Goal\n\nAnother goal.\n"), "HZC105", "### Goal\n\nAnother"),
]


def _codes(found: tuple[Diagnostic, ...]) -> list[tuple[str, int]]:
    return [(d.code, d.line) for d in found]


@pytest.mark.parametrize(("text", "code", "fragment", "column"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_error_code_and_line(text: str, code: str, fragment: str, column: int | None) -> None:
    result = load_text(text, path="weekly-digest.prose.md")
    assert result.contract is None
    line = line_of(fragment, text)
    assert (code, line) in _codes(result.diagnostics), result.diagnostics
    if column is not None:
        assert next(d.column for d in result.diagnostics if d.code == code) == column


@pytest.mark.parametrize(("text", "code", "fragment"), [w[1:] for w in WARNINGS], ids=[w[0] for w in WARNINGS])
def test_warning_code_and_line(text: str, code: str, fragment: str) -> None:
    result = load_text(text, path="weekly-digest.prose.md")
    assert result.contract is not None, result.diagnostics
    assert _codes(result.diagnostics) == [(code, line_of(fragment, text))]
    assert result.diagnostics[0].severity == "warning"


def test_good_sample_is_clean() -> None:
    result = load_text(GOOD)
    assert result.diagnostics == ()
    assert result.contract is not None
    assert result.contract.qualified_name == "team:weekly-digest"


def test_name_must_equal_file_stem(tmp_path: Path) -> None:
    path = tmp_path / "digest.prose.md"
    path.write_text(GOOD)
    result = load_contract(path)
    assert result.contract is None
    assert [d.render() for d in result.diagnostics] == [
        f"{path}:2:7  HZC010  name\n"
        "  name 'weekly-digest' does not match the file name 'digest.prose.md'\n"
        "  hint: rename the file to weekly-digest.prose.md, or set name: digest"
    ]


def test_schema_violation_is_rephrased_with_the_node_position() -> None:
    result = load_text(variant("window: 7d", "window: 7 days"), path="w.prose.md")
    assert [d.render() for d in result.diagnostics] == [
        "w.prose.md:15:15  HZC002  hz.inputs.commits.window\n"
        "  '7 days' is not a duration: a whole number and one of s, m, h, d, w (such as 15m or 7d)\n"
        "  hint: write a whole number and a unit: 30s, 15m, 2h, 7d or 1w"
    ]


def test_duplicate_key_message() -> None:
    result = load_text(variant("  scope: team\n", "  scope: team\n  scope: personal\n"), path="w.prose.md")
    assert [d.to_json() for d in result.diagnostics] == [
        {
            "path": "w.prose.md",
            "line": 10,
            "column": 3,
            "code": "HZC004",
            "severity": "error",
            "loc": "frontmatter",
            "message": 'found duplicate key "scope" with value "personal" (original value: "team"); '
            "YAML keys must be unique, and hz never lets a later one win",
            "hint": "quote the key, or remove the duplicate",
        }
    ]


def test_unknown_key_suggests_the_near_one() -> None:
    result = load_text(variant("  scope: team\n", "  scope: team\n  titel: x\n"), path="w.prose.md")
    assert [(d.loc, d.message, d.hint) for d in result.diagnostics] == [
        ("hz.titel", "unknown key 'titel'", "did you mean 'title'?")
    ]


def test_a_key_of_another_place_is_told_where_it_belongs() -> None:
    result = load_text(variant("  scope: team\n", "  scope: team\n  tz: UTC\n"), path="w.prose.md")
    assert [(d.loc, d.message, d.hint) for d in result.diagnostics] == [
        ("hz.tz", "unknown key 'tz'", "'tz' belongs under an entry of hz.schedule (- cron: …), not here")
    ]


def test_unreadable_encoding(tmp_path: Path) -> None:
    path = tmp_path / "weekly-digest.prose.md"
    path.write_bytes(b"---\nname: \xff\n---\n")
    result = load_contract(path)
    assert [(d.code, d.line, d.column, d.message) for d in result.diagnostics] == [
        ("HZC001", 2, 7, "the file is not UTF-8 text (byte 10 is 0xff); it looks like Windows (CP1252) or Latin-1 text")
    ]
    assert result.diagnostics[0].hint.startswith("save it as UTF-8 (iconv -f CP1252 -t UTF-8 ")


def test_a_bad_mapping_key_is_named_at_the_key() -> None:
    text = variant("    commits:\n", "    my-commits:\n")
    result = load_text(text, path="w.prose.md")
    assert result.diagnostics[0].render() == (
        "w.prose.md:13:5  HZC002  hz.inputs.my-commits\n"
        "  'my-commits' is not an identifier: lowercase letters, digits and underscores, starting with a letter"
    )
    # the body is checked in the same run: its item still names the old input
    assert [d.code for d in result.diagnostics[1:]] == ["HZC103", "HZC103"]


def test_a_value_matching_no_alternative_names_them_all() -> None:
    result = load_text(variant("  scope: team\n", "  scope: team\n  freshness: sometimes\n"), path="w.prose.md")
    assert [(d.line, d.column, d.loc, d.message) for d in result.diagnostics] == [
        (10, 14, "hz.freshness", "'sometimes' must be a duration (such as 15m or 7d) or 'slot'")
    ]


def test_extension_keys_only_at_the_top_level() -> None:
    assert load_text(variant("name: weekly-digest", "name: weekly-digest\nx-editor: {theme: dark}")).diagnostics == ()
    nested = load_text(variant("  scope: team\n", "  scope: team\n  x-editor: 1\n"), path="w.prose.md")
    assert [(d.code, d.loc, d.message, d.hint) for d in nested.diagnostics] == [
        (
            "HZC002",
            "hz.x-editor",
            "unknown key 'x-editor'",
            "x-* keys for other tools are allowed only at the top level of the frontmatter",
        )
    ]


def test_every_code_of_stages_1_and_2_has_a_fixture() -> None:
    owned = {"HZC001", "HZC002", "HZC003", "HZC004", "HZC010", "HZC011", "HZC016", "HZC019", "HZC021"}
    owned |= {f"HZC10{n}" for n in range(1, 8)}
    covered = {case[2] for case in CASES} | {warning[2] for warning in WARNINGS} | {"HZC010"}
    assert owned <= covered, sorted(owned - covered)


def _bomb(levels: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, levels)]
    return "---\n" + "\n".join(lines) + "\n---\n"


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("---\nname: " + "[" * 5000 + "]" * 5000 + "\n---\n", "the frontmatter nests deeper than 32 levels", 2),
        ("---\nname: x\nloop: &a [*a]\n---\n", "the frontmatter nests deeper than 32 levels", 3),
        (_bomb(8), "the frontmatter holds more than 20,000 values (aliases counted)", 2),
    ],
    ids=["deep", "self-alias", "alias-bomb"],
)
def test_hostile_yaml_is_a_diagnostic(text: str, message: str, line: int) -> None:
    result = load_text(text)
    frontmatter = [d for d in result.diagnostics if not d.loc.startswith("###")]  # the body is checked too
    assert [(d.code, d.line, d.message) for d in frontmatter] == [("HZC001", line, message)]


def test_missing_keys_are_named_one_by_one() -> None:
    result = load_text("---\nname: x\n---\n")
    assert [(d.line, d.loc, d.message) for d in result.diagnostics] == [
        (2, "kind", "required key 'kind' is missing"),
        (2, "description", "required key 'description' is missing"),
        (2, "hz", "required key 'hz' is missing"),
        (4, "### Goal", "### Goal is missing or empty"),  # the empty body, in the same run
        (4, "### Done when", "### Done when is missing"),
    ]
