"""OpenProse files in the shapes people write today: each imports into a contract people keep."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hz.commands.workflow_import import _diagnostics
from hz.contract.load import load_contract
from hz.contract.prose_import import Imported, import_prose, read_prose
from hz.contract.sections import parse_body
from hz.contract.text import split_frontmatter

from .test_prose_import import CORPUS, ID, _import

SOURCES = re.compile(r"^(    (\w+)): \{\}  # TODO\(import-prose\).*$", re.M)


def _errors(imported: Imported, name: str) -> list[tuple[str, str]]:
    text = SOURCES.sub(r'\1:\n      source: "git:."', imported.text)
    return [(d.code, d.message) for d in _diagnostics(f"workflows/{name}", text) if d.is_error]


def _sections(imported: Imported) -> dict[str, str]:
    split = split_frontmatter(imported.text)
    assert split is not None
    return {s.name: s.text for s in parse_body(split.body).sections}


def test_a_title_and_a_quoted_lead_become_title_description_and_goal() -> None:
    imported = _import("on-call-handbook.prose.md")
    contract = load_contract(Path("workflows/on-call-handbook.prose.md"), text=SOURCES.sub(
        r'\1:\n      source: "git:."', imported.text)).contract  # fmt: skip
    assert contract is not None
    assert contract.frontmatter.hz.title == "On-call handbook"
    lead = (
        "The handbook page every new on-call engineer reads first stays true to the current rota, escalation "
        "paths and runbooks. It is rebuilt from the rota file whenever that file moves."
    )
    assert contract.frontmatter.description == lead
    sections = _sections(imported)
    assert sections["goal"] == (
        "The handbook page every new on-call engineer reads first stays true to the current rota, escalation "
        "paths and runbooks."
    )
    assert sections["done when"] == "- [ ] " + sections["goal"]
    assert imported.todos == [  # owner given, a lead: only where the input is read from is left to the author
        "hz.inputs.rota.source: where it is read from, such as git:., feed:https://… or contract:team/<name>"
    ]


def test_a_file_without_a_name_takes_the_file_s_name() -> None:
    imported = _import("on-call-handbook.prose.md")
    assert imported.text.startswith('---\nname: "on-call-handbook"\n')
    assert "name: on-call-handbook (the file has no name: it is taken from the file's name)" in imported.notes


def test_a_dotted_id_becomes_a_minted_one_with_the_old_kept_as_a_comment() -> None:
    imported = _import("on-call-handbook.prose.md")
    assert f'id: "{ID}"\n# OpenProse id: docs.on-call (hz ids are 26-character ULIDs: a new one was minted)\n' in (
        imported.text
    )
    assert "id: 'docs.on-call' is not an hz id (a 26-character ULID): minted one, the old kept as a comment" in (
        imported.notes
    )
    assert _errors(imported, "on-call-handbook.prose.md") == []


def test_a_field_list_under_maintains_is_one_output_with_a_facet_per_field() -> None:
    imported = _import("on-call-handbook.prose.md")
    contract = load_contract(Path("workflows/on-call-handbook.prose.md"), text=SOURCES.sub(
        r'\1:\n      source: "git:."', imported.text)).contract  # fmt: skip
    assert contract is not None
    outputs = contract.frontmatter.hz.outputs
    assert list(outputs) == ["on_call_handbook"]
    assert outputs["on_call_handbook"].facets == ("path", "html", "content_hash")
    maintains = imported.text.split("### Maintains", 1)[1].split("### Continuity", 1)[0]
    assert "#### content_hash\n\na digest of the rendered page, so an unchanged render costs nothing" in maintains
    assert maintains.index("Nobody edits the page by hand.") < maintains.index("- `on_call_handbook`:")


def test_a_description_section_gives_the_goal_and_inline_components_are_reported() -> None:
    imported = _import("build-status.prose.md")
    sections = _sections(imported)
    assert sections["goal"] == "The build status board shows the last result of every package's build."
    assert any(n.startswith("## summarizer is an inline component") for n in imported.notes)
    assert _errors(imported, "build-status.prose.md") == []


def test_an_item_without_facets_is_its_own_one_facet() -> None:
    imported = _import("build-status.prose.md")
    assert "      facets: [board]\n" in imported.text
    assert "`board` has no #### facets: it is its own one facet, `board`" in imported.notes


def test_a_postcondition_paragraph_before_the_facets_never_moves_the_added_item() -> None:
    imported = _import("queue-health.prose.md")
    assert _errors(imported, "queue-health.prose.md") == []
    sections = _sections(imported)
    assert sections["done when"] == "- every queue with samples in the window has a line."
    maintains = imported.text.split("### Maintains", 1)[1]
    assert maintains.index("- `queue_health`:") < maintains.index("#### depth")


def test_postconditions_named_in_prose_before_a_list_move_to_done_when() -> None:
    text = (
        "---\nname: brief\nkind: responsibility\n---\n\n### Goal\n\nThe brief is current.\n\n"
        "### Requires\n\n- `news`: the news.\n\n### Maintains\n\nThe brief:\n\n- `headline`: one line.\n"
        "- `epoch`: the source epoch.\n\nThe render checks these **postconditions** before it signs:\n\n"
        "- the `headline` restates the upstream one;\n- `epoch` equals the upstream epoch.\n"
    )
    prose = read_prose(text)
    assert prose is not None
    imported = import_prose(prose, owner="@a", contract_id=ID)
    assert _errors(imported, "brief.prose.md") == []
    assert _sections(imported)["done when"] == (
        "- the `headline` restates the upstream one;\n- `epoch` equals the upstream epoch."
    )


def test_import_prose_of_a_file_without_a_name_writes_it_under_the_file_s_name(repo: Path, hz: Any) -> None:
    (repo / "on-call-handbook.prose.md").write_text((CORPUS / "on-call-handbook.prose.md").read_text())
    result = hz("workflow", "import-prose", "on-call-handbook.prose.md", "--owner", "@a", "--write")
    assert result.out == "wrote workflows/on-call-handbook.prose.md\n", result.err
    assert "the OpenProse name ''" not in result.err
