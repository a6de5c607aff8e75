"""The frontmatter split, the body's sections and facets, defaults, positions and round trips."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.contract.load import apply_defaults, load_text
from hz.contract.sections import parse_body
from hz.contract.text import normalize, split_frontmatter, strip_comments, tidy

from .samples import GOOD, variant


def test_normalize_makes_nfc_and_lf() -> None:
    assert normalize("\ufeffa\r\nb\rc\u0065\u0301") == "a\nb\nc\u00e9"


def test_split_file_form() -> None:
    split = split_frontmatter("---\nname: x\n---\n\n# T\n")
    assert split is not None
    assert (split.yaml, split.body, split.yaml_line, split.body_line, split.form) == (
        "name: x\n",
        "\n# T\n",
        2,
        4,
        "file",
    )


def test_split_embedded_form_after_blank_lines() -> None:
    split = split_frontmatter("\n\n~~~~ yaml\nname: x\n~~~~\nbody\n")
    assert split is not None
    assert (split.yaml, split.body, split.yaml_line, split.body_line, split.form) == (
        "name: x\n",
        "body\n",
        4,
        6,
        "embedded",
    )


def test_no_frontmatter() -> None:
    assert split_frontmatter("# Title\n---\n") is None
    assert split_frontmatter("```python\nx = 1\n```\n") is None
    assert split_frontmatter("---\nname: x\n") is None


def test_comments_and_tidy() -> None:
    text = "a <!-- x -->\n<!-- whole\nline -->\nb  \n\n\n\nc<!-- open"
    assert strip_comments(text) == "a \nb  \n\n\n\nc"
    assert tidy(strip_comments(text)) == "a\nb\n\nc"


def test_title_headings_and_facets() -> None:
    body = parse_body(
        "Doc title\n=========\n\nGoal\n----\n\nIt holds.\n\n## Maintains\n\n"
        "- `a`: first\n\n### one\n\nx\n\n- `b`: second\n\n### two\n\ny\n",
        first_line=10,
    )
    assert body.title == "Doc title"
    assert [(s.name, s.line) for s in body.sections] == [("goal", 13), ("maintains", 18)]
    maintains = body.sections[1]
    assert {n: (i.line, i.facets) for n, i in maintains.items.items()} == {"a": (20, ("one",)), "b": (26, ("two",))}
    assert body.canonical == (
        "# Doc title\n\n### Goal\n\nIt holds.\n\n### Maintains\n\n- `a`: first\n\n#### one\n\nx\n\n"
        "- `b`: second\n\n#### two\n\ny"
    )


def test_a_lone_section_heading_is_not_a_title() -> None:
    body = parse_body("# Goal\n\nIt holds.\n\n# Done when\n\n- yes\n")
    assert body.title is None
    assert [s.name for s in body.sections] == ["goal", "done when"]


def test_defaults_fill_under_the_files_own_keys() -> None:
    data = {"hz": {"owner": "@me", "cost": {"max_tokens": 2000}, "schedule": ["0 1 * * *", {"cron": "0 2 * * *"}]}}
    defaults = {"owner": "@team", "cost": {"max_tokens": 9000, "max_usd_per_day": 1.5}, "tz": "Europe/Berlin"}
    assert apply_defaults(data, defaults) == {
        "hz": {
            "owner": "@me",
            "cost": {"max_tokens": 2000, "max_usd_per_day": 1.5},
            "schedule": [{"cron": "0 1 * * *", "tz": "Europe/Berlin"}, {"cron": "0 2 * * *", "tz": "Europe/Berlin"}],
        }
    }
    assert data["hz"]["owner"] == "@me" and data["hz"]["cost"] == {"max_tokens": 2000}


def test_defaults_work_like_explicit_values() -> None:
    explicit = load_text(variant("  scope: team\n", "  scope: team\n  tags: [digest]\n"))
    defaulted = load_text(GOOD, defaults={"tags": ["digest"], "tz": "UTC"})
    assert explicit.contract is not None and defaulted.contract is not None
    assert defaulted.contract.frontmatter.hz.tags == ("digest",)
    assert defaulted.contract.frontmatter.hz.schedule is not None
    assert defaulted.contract.frontmatter.hz.schedule[0].tz == "UTC"
    assert defaulted.contract.contract_fingerprint == explicit.contract.contract_fingerprint


def test_locate_points_at_yaml_nodes() -> None:
    contract = load_text(GOOD).contract
    assert contract is not None
    assert contract.locate(("hz", "inputs", "commits", "source")) == (14, 15)
    assert contract.locate(("hz", "on", 0)) == (11, 8)
    assert contract.locate(("hz", "publishes", 3, "action")) == (6, 3)  # nearest existing node: hz
    assert contract.locate_key(("hz", "scope")) == (9, 3)


def test_canonical_text_is_a_fixed_point() -> None:
    first = load_text(GOOD.replace("- `", "* `").replace("\n\n", "\n\n\n")).contract
    assert first is not None
    again = load_text(first.text).contract
    assert again is not None
    assert again.text == first.text
    assert again.source_fingerprint == first.source_fingerprint
    assert again.contract_fingerprint == first.contract_fingerprint


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("#-*+ `>\n\tab<!->1.~_=")), max_size=200))
def test_canonical_body_is_idempotent(body: str) -> None:
    once = parse_body(body).canonical
    assert parse_body(once).canonical == once


def test_the_agent_never_sees_author_notes() -> None:
    contract = load_text(variant("### Goal\n", "### Goal\n<!-- ask Ana first -->\n")).contract
    assert contract is not None
    assert "<!-- ask Ana first -->" in contract.body
    assert "Ana" not in contract.agent_body
    assert contract.agent_body.startswith("# Weekly change digest\n\n### Goal\n\nThe digest for the past ISO week")
    assert contract.body.startswith("# Weekly change digest\n")
