"""OpenProse files as they are written: recognised by migrate, imported into contracts by import-prose.

The corpus in prose_corpus/ is written in OpenProse's own format (kinds, dashed facet names, retired
sections, a file whose sections are `##`, a file with only a Goal); every file either imports to a
contract that validates once its TODOs are filled in, or is refused with words about its kind.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.contract.export import export_prose
from hz.contract.load import load_contract, load_text
from hz.contract.prose_import import Imported, import_prose, read_prose
from hz.contract.prose_names import identifiers, is_identifier
from hz.contract.sections import parse_body
from hz.contract.text import split_frontmatter
from hz.errors import HzError

from .samples import GOOD

CORPUS = Path(__file__).parent / "prose_corpus"
RESPONSIBILITIES = sorted(p.name for p in CORPUS.glob("*.prose.md") if "kind: responsibility" in p.read_text())
OTHER_KINDS = {"webhook-intake.prose.md": "gateway", "score-formatter.prose.md": "function"}
ID = "01JBQ80C2E4G6J8K0M2N4P6Q8S"


def _import(name: str, owner: str | None = "@alice") -> Imported:
    prose = read_prose((CORPUS / name).read_text())
    assert prose is not None
    return import_prose(prose, owner=owner, contract_id=ID, file_name=name)


def _filled(text: str) -> str:
    """The imported text with its TODOs done the way an author does them: a source per input, a
    postcondition when there is none, an output for a file that maintains nothing yet."""
    text = re.sub(r"^(    (\w+)): \{\}  # TODO\(import-prose\).*$", r'\1:\n      source: "git:."', text, flags=re.M)
    text = re.sub(r"^      # TODO\(import-prose\): source.*$", '      source: "git:."', text, flags=re.M)
    text = text.replace("  # TODO(import-prose): owner", '  owner: "@bob"\n  # owner')
    text = re.sub(
        r"^  # TODO\(import-prose\): outputs.*$",
        '  outputs:\n    metric:\n      target: "state:m.md"\n      facets: [value]',
        text,
        flags=re.M,
    )
    if "outputs:\n    metric" in text:
        text = text.replace(
            "### Done when", "### Maintains\n\n- `metric`: the metric.\n\n#### value\n\nMaterial: it.\n\n### Done when"
        )
    return text.replace("<!-- TODO(import-prose): list the postconditions as items -->", "- [ ] it holds")


@pytest.mark.parametrize("name", RESPONSIBILITIES)
def test_each_responsibility_imports_to_a_contract_that_validates_once_its_todos_are_done(name: str) -> None:
    imported = _import(name)
    stem = name.removesuffix(".prose.md")
    first = load_contract(Path("workflows") / name, text=imported.text)
    errors = [d for d in first.diagnostics if d.is_error]
    # what is left is exactly what the import listed as to do: each error's place is named there
    for error in errors:
        named = error.loc.split(".source")[0] if ".source" in error.loc else error.loc
        assert any(named.removeprefix("### ") in todo for todo in imported.todos), (error, imported.todos)
    done = load_contract(Path("workflows") / name, text=_filled(imported.text))
    assert [d for d in done.diagnostics if d.is_error] == [], (name, done.diagnostics)
    assert done.contract is not None and done.contract.frontmatter.name == stem


def test_a_complete_file_lists_only_its_input_sources_to_fill_in() -> None:
    imported = _import("incident-digest.prose.md")
    assert imported.todos == [
        "hz.inputs.pager_log.source: where it is read from, such as git:., feed:https://… or contract:team/<name>"
    ]
    assert any("target: state:incident-digest/digest.md" in n for n in imported.notes)


@pytest.mark.parametrize(("name", "kind"), sorted(OTHER_KINDS.items()))
def test_other_kinds_are_refused_saying_hz_serves_responsibilities_only(name: str, kind: str) -> None:
    with pytest.raises(HzError) as refused:
        _import(name)
    assert refused.value.message == f"this is an OpenProse {kind}, and hz serves responsibilities only"
    assert refused.value.hint


def test_dashed_names_are_renamed_in_the_frontmatter_and_the_body_alike() -> None:
    imported = _import("package-registry.prose.md")
    assert imported.renames == {
        "release-feed": "release_feed",
        "pkg-core": "pkg_core",
        "pkg-cli": "pkg_cli",
        "registry-page": "registry_page",
        "owner-map": "owner_map",
    }
    contract = load_contract(Path("workflows/package-registry.prose.md"), text=_filled(imported.text)).contract
    assert contract is not None
    hz = contract.frontmatter.hz
    assert list(hz.inputs) == ["release_feed", "owners"]
    assert hz.inputs["release_feed"].facets == ("pkg_core", "pkg_cli")
    assert hz.outputs["registry_page"].facets == ("pkg_core", "pkg_cli", "owner_map")
    split = split_frontmatter(imported.text)
    assert split is not None
    assert not any(old in split.body for old in imported.renames), "every mention in the body is renamed"
    assert "- every package with a release in `release_feed` has a row" in split.body


def test_two_names_that_read_alike_stay_two() -> None:
    imported = _import("dependency-watch.prose.md")
    assert imported.renames["open-advisories"] != "open_advisories"
    assert imported.renames["Größe"] == "groesse" or imported.renames["Größe"].startswith("gro")
    assert imported.renames["2fa-coverage"] == "n_2fa_coverage"
    facets = re.search(r"facets: \[(.*)\]", imported.text)
    assert facets is not None and len(set(facets.group(1).split(", "))) == 4


def test_retired_sections_move_to_the_sections_that_took_their_job() -> None:
    imported = _import("release-notes.prose.md")
    body = parse_body(imported.text.split("\n---\n", 1)[1])
    names = [s.name for s in body.sections]
    assert names == ["description", "goal", "requires", "maintains", "done when", "steps", "invariants"]
    by_name = {s.name: s for s in body.sections}
    assert "breaking changes come first" in by_name["done when"].text
    assert "never mention internal ticket numbers" in by_name["done when"].text
    assert "Group the changes by area" in by_name["steps"].text and "Remember which" in by_name["steps"].text
    assert "never comments on them" in by_name["invariants"].text
    assert "mcp:github" in by_name["description"].text
    assert any("### Wiring" in t for t in imported.todos)
    assert "x-tags" in imported.text


def test_execution_and_strategies_become_steps_and_tools_become_hz_tools() -> None:
    imported = _import("dependency-watch.prose.md")
    assert 'tools: ["cli:osv-scanner", "mcp:github"]' in imported.text
    steps = imported.text.split("### Steps", 1)[1]
    assert 'session "triage"' in steps and "Prefer upgrades" in steps
    assert "advisory-feed" in steps, "code blocks are left as written"


def test_a_file_written_with_double_hash_sections_imports_like_one_with_triple() -> None:
    imported = _import("incident-digest.prose.md")
    assert "\n### Goal\n" in imported.text and "\n#### sev_1\n" in imported.text
    assert "## Goal" not in imported.text.replace("### Goal", "")
    assert imported.text.rstrip().endswith("- [ ] every severity-1 incident names a follow-up owner")


def test_a_goal_only_file_lists_everything_else_to_write() -> None:
    imported = _import("north-star.prose.md", owner=None)
    assert [t.split(":")[0] for t in imported.todos] == [
        "hz.owner",
        "### Maintains and hz.outputs",
        "nothing wakes this contract",
    ]


def test_export_then_import_gives_the_same_contract() -> None:
    original = load_text(GOOD, path="weekly-digest.prose.md").contract
    assert original is not None
    prose = read_prose(export_prose(original))
    assert prose is not None
    imported = import_prose(prose, owner=original.frontmatter.hz.owner, contract_id=ID)
    assert imported.renames == {}
    # the operational keys export drops (sources, targets) are put back as the author would
    text = imported.text
    for name, spec in original.frontmatter.hz.inputs.items():
        text = re.sub(
            rf"^    {name}: \{{\}}  # TODO.*$", f"    {name}:\n      source: {spec.source[0]!r}", text, flags=re.M
        )
        text = re.sub(rf"^(    {name}:\n)      # TODO.*$", rf"\1      source: {spec.source[0]!r}", text, flags=re.M)
    for name, out in original.frontmatter.hz.outputs.items():
        text = text.replace(f'target: "state:weekly-digest/{name}.md"', f"target: {out.target!r}")
        text = text.replace(f'target: "state:weekly-digest/{name}.md"', f"target: {out.target!r}")
    back = load_text(text, path="weekly-digest.prose.md")
    assert back.contract is not None, back.diagnostics
    assert back.contract.section_fingerprints == original.section_fingerprints
    assert back.contract.frontmatter.hz.outputs == original.frontmatter.hz.outputs
    assert back.contract.frontmatter.hz.inputs.keys() == original.frontmatter.hz.inputs.keys()


ROOT = Path(__file__).resolve().parents[2]
OWN_CONTRACTS = sorted([*ROOT.glob("workflows/*.prose.md"), *ROOT.glob("hz/workflows/*.prose.md")])


@pytest.mark.parametrize("path", OWN_CONTRACTS, ids=lambda p: p.name)
def test_each_of_hz_s_own_contracts_survives_export_and_import(path: Path) -> None:
    original = load_text(path.read_text(), path=path.name).contract
    assert original is not None
    prose = read_prose(export_prose(original))
    assert prose is not None
    imported = import_prose(prose, owner="@a", contract_id=ID)
    back = load_text(text_with_sources(_sources_in_place(imported.text)), path=path.name)
    assert back.contract is not None, back.diagnostics
    assert back.contract.section_fingerprints == original.section_fingerprints
    hz, was = back.contract.frontmatter.hz, original.frontmatter.hz
    assert {n: o.facets for n, o in hz.outputs.items()} == {n: o.facets for n, o in was.outputs.items()}
    # an input's provider facets live only in hz: unless the author wrote them as #### under its item
    assert hz.inputs.keys() == was.inputs.keys()
    assert all(set(hz.inputs[n].facets) <= set(i.facets) for n, i in was.inputs.items())
    assert back.contract.frontmatter.description == original.frontmatter.description


def _sources_in_place(text: str) -> str:
    return re.sub(r"^      # TODO\(import-prose\): source.*$", '      source: "git:."', text, flags=re.M)


_NAME = st.text(alphabet=st.sampled_from("abcxyz019-_ .ÄéßΩ日本"), min_size=1, max_size=20).filter(str.strip)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_NAME, min_size=1, max_size=12, unique=True))
def test_any_names_become_distinct_identifiers(names: list[str]) -> None:
    mapping = identifiers(names)
    assert set(mapping) == set(names)
    assert all(is_identifier(new) for new in mapping.values())
    assert len(set(mapping.values())) == len(names), "two names collapsed into one"
    assert identifiers(names) == mapping, "the same names always map the same way"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        # as a heading shows a name: no space at either end, none doubled
        st.text(alphabet=st.sampled_from("aAbz09-_ .ÄäéΩß日"), min_size=1, max_size=12).map(
            lambda n: " ".join(n.split())
        ),
        min_size=2,
        max_size=6,
        unique=True,
    ).filter(all)
)
def test_any_generated_openprose_body_imports_with_valid_distinct_names(facets: list[str]) -> None:
    item, *rest = facets
    body = "".join(f"#### {f}\n\nMaterial: {f}.\n\n" for f in rest)
    text = (
        "---\nname: gen\nkind: responsibility\n---\n\n### Goal\n\nThe page is current.\n\n"
        f"### Requires\n\n- `{item}`: what is read.\n\n### Maintains\n\n- `{item}`: the page.\n\n{body}"
        "Postconditions:\n\n- [ ] it holds\n"
    )
    prose = read_prose(text)
    assert prose is not None
    imported = import_prose(prose, owner="@a", contract_id=ID)
    result = load_text(text_with_sources(imported.text), path="gen.prose.md")
    assert result.contract is not None, result.diagnostics
    hz = result.contract.frontmatter.hz
    new = [imported.renames.get(f, f) for f in facets]
    assert list(hz.outputs) == [new[0]] and list(hz.outputs[new[0]].facets) == new[1:]
    assert len(set(new)) == len(facets)


def text_with_sources(text: str) -> str:
    return re.sub(r"^(    \w+): \{\}  # TODO.*$", r'\1:\n      source: "git:."', text, flags=re.M)


# --- the commands, end to end -------------------------------------------------------------------


@pytest.fixture
def prose_repo(repo: Path) -> Path:
    (repo / "workflows").mkdir()
    for name in ("package-registry.prose.md", "webhook-intake.prose.md"):
        shutil.copy(CORPUS / name, repo / "workflows" / name)
    return repo


def test_migrate_says_what_an_openprose_file_is_and_what_to_run(prose_repo: Path, hz: Any) -> None:
    result = hz("workflow", "migrate")
    assert result.exit_code == 1
    assert "up to date" not in result.out + result.err
    assert (
        "workflows/package-registry.prose.md: an OpenProse responsibility with no hz: block, "
        "so not yet an hz contract and not adopted\n"
        "  hint: run `hz workflow import-prose workflows/package-registry.prose.md --write`"
    ) in result.err
    assert (
        "workflows/webhook-intake.prose.md: this is an OpenProse gateway, and hz serves responsibilities only"
    ) in result.err
    assert "HZC002" not in result.err, "its validation errors all follow from the missing hz: block"


def test_migrate_of_one_openprose_file_by_path(prose_repo: Path, hz: Any) -> None:
    result = hz("workflow", "migrate", "workflows/package-registry.prose.md")
    assert result.exit_code == 1
    assert "import-prose" in result.err


def test_import_prose_writes_in_place_and_lists_what_is_left(prose_repo: Path, hz: Any) -> None:
    result = hz("workflow", "import-prose", "workflows/package-registry.prose.md", "--owner", "@alice", "--write")
    assert result.exit_code == 1, result.err
    assert result.out == "wrote workflows/package-registry.prose.md\n"
    assert "workflows/package-registry.prose.md:" in result.err, "validation's places are where the file is"
    assert "note: renamed 'pkg-core' to 'pkg_core'" in result.err
    assert "to do: hz.inputs.release_feed.source" in result.err
    assert "HZC002" in result.err and "hz.inputs.owners.source" in result.err
    written = (prose_repo / "workflows" / "package-registry.prose.md").read_text()
    fixed = text_with_sources(
        re.sub(r"^      # TODO\(import-prose\): source.*$", '      source: "git:."', written, flags=re.M)
    )
    (prose_repo / "workflows" / "package-registry.prose.md").write_text(fixed)
    (prose_repo / "workflows" / "webhook-intake.prose.md").unlink()
    validated = hz("workflow", "validate")
    assert validated.exit_code == 0, validated.out
    assert "checked: no problems" in validated.out
    adopted = hz("workflow", "migrate")
    assert adopted.exit_code == 0, adopted.err
    assert "team:package-registry: Heinzelmännchen created" in adopted.err


def test_import_prose_prints_without_write_and_exits_0_when_nothing_is_left(repo: Path, hz: Any) -> None:
    source = repo / "digest.prose.md"
    source.write_text((CORPUS / "incident-digest.prose.md").read_text().replace("`pager-log`", "`history`"))
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    printed = hz("workflow", "import-prose", "digest.prose.md", "--owner", "alice")
    assert printed.exit_code == 1  # the source of `history` is left to write
    assert printed.out.startswith('---\nname: "incident-digest"\n')
    assert 'owner: "@alice"' in printed.out
    assert "nothing written: run again with --write" in printed.err
    assert not (repo / "workflows").exists()


@pytest.mark.parametrize(("name", "kind"), sorted(OTHER_KINDS.items()))
def test_import_prose_refuses_other_kinds_with_a_hint(repo: Path, hz: Any, name: str, kind: str) -> None:
    shutil.copy(CORPUS / name, repo / name)
    result = hz("workflow", "import-prose", name, "--write")
    assert result.exit_code == 1
    assert f"error: this is an OpenProse {kind}, and hz serves responsibilities only\n  hint: " in result.err


def test_import_prose_of_an_hz_contract_points_at_validate(repo: Path, hz: Any) -> None:
    (repo / "weekly-digest.prose.md").write_text(GOOD)
    result = hz("workflow", "import-prose", "weekly-digest.prose.md")
    assert result.exit_code == 1
    assert "is not an OpenProse file" in result.err and "hz workflow validate" in result.err


def test_import_prose_never_overwrites_another_contract(prose_repo: Path, hz: Any) -> None:
    elsewhere = prose_repo / "drafts"
    elsewhere.mkdir()
    shutil.copy(CORPUS / "package-registry.prose.md", elsewhere / "package-registry.prose.md")
    before = (prose_repo / "workflows" / "package-registry.prose.md").read_text()
    result = hz("workflow", "import-prose", "drafts/package-registry.prose.md", "--write")
    assert result.exit_code == 1 and "already exists" in result.err
    assert (prose_repo / "workflows" / "package-registry.prose.md").read_text() == before


def test_import_prose_into_a_new_file_says_the_openprose_file_is_left(repo: Path, hz: Any) -> None:
    shutil.copy(CORPUS / "incident-digest.prose.md", repo / "incident.prose.md")
    result = hz("workflow", "import-prose", "incident.prose.md", "--write", "--owner", "@a")
    assert result.out == "wrote workflows/incident-digest.prose.md\n"
    assert "note: incident.prose.md is left as it was" in result.err
    assert (repo / "incident.prose.md").read_text() == (CORPUS / "incident-digest.prose.md").read_text()


_LINE = st.one_of(
    st.sampled_from(
        [
            "### Goal",
            "## Goal",
            "### Requires",
            "### Maintains",
            "## Maintains",
            "### Criteria",
            "### Wiring",
            "### Done when",
            "# Title",
            "Postconditions:",
            "**Postconditions:** it holds",
            "#### Postconditions",
            "```",
            "~~~",
            "<!-- a note",
            "-->",
            "",
            "The page is current.",
        ]
    ),
    st.builds(lambda n: f"#### {n}", _NAME),
    st.builds(lambda n: f"- `{n}`: an item.", _NAME.filter(lambda n: "`" not in n)),
    st.builds(lambda n: f"Material: `{n}`.", _NAME),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, max_size=40), st.sampled_from(["responsibility", "gateway", "Responsibility"]))
def test_any_openprose_body_imports_or_is_refused_in_words(lines: list[str], kind: str) -> None:
    """Whatever the body holds, the import ends in a contract text (valid or with its TODOs) or an HzError."""
    prose = read_prose(f"---\nname: gen\nkind: {kind}\n---\n\n" + "\n".join(lines) + "\n")
    assert prose is not None
    try:
        imported = import_prose(prose, owner="@a", contract_id=ID)
    except HzError:
        assert kind != "responsibility"
        return
    result = load_text(text_with_sources(imported.text), path="gen.prose.md")
    assert not [d for d in result.diagnostics if d.code in ("HZC001", "HZC004")], "the written YAML always reads"
    frontmatter = result.contract.frontmatter if result.contract else None
    if frontmatter is not None:
        names = [*frontmatter.hz.inputs, *frontmatter.hz.outputs]
        names += [f for o in frontmatter.hz.outputs.values() for f in o.facets]
        assert all(is_identifier(n) for n in names)
    assert all(is_identifier(new) for new in imported.renames.values())


def test_other_frontmatter_keys_are_kept_as_x_keys_whatever_their_values() -> None:
    text = (
        "---\nname: dated\nkind: responsibility\ncreated: 2024-05-01\nauthor: {name: Ana, team: core}\n"
        "x-color: blue\n---\n\n### Goal\n\nThe page is current.\n\n### Maintains\n\n- `page`: it.\n\n#### all\n\n"
        "Material: it.\n\nPostconditions:\n\n- it holds\n"
    )
    prose = read_prose(text)
    assert prose is not None
    imported = import_prose(prose, owner="@a", contract_id=ID)
    result = load_text(imported.text, path="dated.prose.md")
    assert result.contract is not None, result.diagnostics
    assert '"x-created": "2024-05-01"' in imported.text and '"x-color": "blue"' in imported.text
    assert '"x-author": {"name": "Ana", "team": "core"}' in imported.text


@pytest.mark.parametrize(
    ("plant", "says"),
    [
        (lambda p: os.mkfifo(p), "is a FIFO, not a regular file"),
        (lambda p: p.write_bytes(b"---\nname: caf\xe9\n"), "not UTF-8 text"),
        (lambda p: p.mkdir(), "is a folder, not a regular file"),
        (
            lambda p: p.write_text("---\nname: ../evil\nkind: responsibility\n---\n\n### Goal\n\nX is current.\n"),
            "the OpenProse name '../evil' cannot name a contract file",
        ),
        (lambda p: p.write_text("### Goal\n\nNo frontmatter.\n"), "is not an OpenProse file"),
    ],
)
def test_import_prose_of_what_is_not_a_readable_openprose_file(repo: Path, hz: Any, plant: Any, says: str) -> None:
    plant(repo / "odd.prose.md")
    result = hz("workflow", "import-prose", "odd.prose.md", "--write")
    assert result.exit_code == 1
    assert says in result.err and "hint: " in result.err
    assert not (repo / "workflows").exists()
