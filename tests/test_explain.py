"""`hz explain`: a code or event kind explained, any case; unknown words get the closest known ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hz.codes import catalog, render

ROOT = Path(__file__).resolve().parents[1]


def test_a_code_in_any_case_prints_meaning_example_and_fix(hz: Any) -> None:
    result = hz("explain", "hzc011")
    assert result.exit_code == 0, result.err
    assert result.out.startswith("HZC011  an invalid schedule or time zone\n  error, stage 1: frontmatter\n")
    for heading in ("What it means", "Example: `hz workflow validate` reports it for these files", "Fix"):
        assert f"\n{heading}\n" in result.out
    assert '      schedule: "0 25 * * MON"' in result.out  # the example's file, indented under its path


def test_an_hzs_code_shows_the_event_file_that_raises_it(hz: Any) -> None:
    result = hz("explain", "HZS008")
    assert result.exit_code == 0
    assert "Example: `hz state lint` reports it for this file, added by a commit to hz/state" in result.out
    assert '"summary":"we shipped it"' in result.out


def test_an_event_kind_in_both_stores_prints_both(hz: Any) -> None:
    result = hz("explain", "turn.started")
    assert result.exit_code == 0
    assert "turn.started  event kind (spine)" in result.out
    assert "turn.started  event kind (hz/state)" in result.out
    assert "contract_version, contract_fp, token, role" in result.out  # the receipt's fields


def test_json_is_a_list_of_entries(hz: Any) -> None:
    (code,) = json.loads(hz("explain", "HZC023", "--json").out)
    assert (code["code"], code["severity"]) == ("HZC023", "warning")
    assert [file["path"] for file in code["example"]] == ["hz.toml", "workflows/digest.prose.md"]
    stores = [kind["store"] for kind in json.loads(hz("explain", "draft.placed", "--json").out)]
    assert stores == ["spine", "hz/state"]


def test_an_unknown_code_exits_1_with_the_closest_codes(hz: Any) -> None:
    result = hz("explain", "HZC24")
    assert result.exit_code == 1
    assert result.out == ""
    assert result.err == (
        "error: no code or event kind 'HZC24'\n"
        "  hint: did you mean HZC024, HZC023, HZC022? `hz explain --list` shows them all\n"
    )
    assert "did you mean turn.started" in hz("explain", "turn.strated").err


def test_no_word_is_an_error_with_a_hint(hz: Any) -> None:
    result = hz("explain")
    assert result.exit_code == 1
    assert "hz explain --list" in result.err


def test_list_has_one_line_per_code_and_kind(hz: Any) -> None:
    lines = hz("explain", "--list").out.splitlines()
    assert len(lines) == len(catalog.CODES) + len(catalog.KINDS)
    assert lines[0] == "HZC001  error    no frontmatter, or YAML that does not parse"
    assert len(json.loads(hz("explain", "--list", "--json").out)) == len(lines)


def test_docs_codes_md_is_what_the_generator_writes(hz: Any) -> None:
    committed = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    generated = hz("explain", "--markdown").out
    assert generated == render.markdown(catalog.CODES, catalog.KINDS)
    assert committed == generated, "docs/codes.md is stale: run `hz explain --markdown > docs/codes.md`"


def test_explaining_imports_neither_pydantic_nor_the_contract_models() -> None:
    """`hz explain` answers from plain data; a new process pays only for the catalog."""
    probe = (
        "import sys, contextlib, io\n"
        "from hz.commands.explain import run_explain\n"
        "with contextlib.redirect_stdout(io.StringIO()): run_explain('HZC011'); run_explain(None, list_all=True)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'ruamel', 'markdown_it', 'click')"
        " or m.startswith('hz.contract')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
