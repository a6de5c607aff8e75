"""The reference of codes and event kinds (hz/codes) is complete, and every example in it is true.

Codes are found in the package's own source, so a code someone adds fails here until it has an entry;
each entry's example is run through the real validator or lint and must raise its code, and nothing
else; codes whose example needs more than files (a history, a hook, an agent's amendment) must be
asserted by a test elsewhere under tests/.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from hz.codes.catalog import CODES, KINDS
from hz.codes.entry import Code

ROOT = Path(__file__).resolve().parents[1]
CODE = re.compile(r"\bHZ[CS]\d{3}\b")
OWN_TESTS = {"test_codes_catalog.py", "test_explain.py"}


def emitted_codes() -> set[str]:
    """Every code literal in the package's source, the reference itself left out."""
    found: set[str] = set()
    for path in (ROOT / "hz").rglob("*.py"):
        if "codes" not in path.relative_to(ROOT / "hz").parts[:1]:
            found |= set(CODE.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_code_the_package_emits_has_an_entry() -> None:
    missing = emitted_codes() - {code.code for code in CODES}
    assert not missing, f"add an entry to hz/codes/ for {sorted(missing)}"


def test_every_entry_is_a_code_the_package_emits() -> None:
    stale = {code.code for code in CODES} - emitted_codes()
    assert not stale, f"no module of hz emits {sorted(stale)} any more; remove their entries"


def test_codes_are_unique_and_in_order() -> None:
    names = [code.code for code in CODES]
    assert names == sorted(set(names))


def test_every_event_kind_has_an_entry_with_its_model_fields() -> None:
    from hz.gitstate.events import PAYLOADS
    from hz.session.vocabulary import MODELS

    def fields(model: Any) -> tuple[str, ...]:
        return tuple(name + ("" if info.is_required() else "?") for name, info in model.model_fields.items())

    catalogued = {(kind.store, kind.name): kind.fields for kind in KINDS}
    models = {("spine", name): fields(model) for name, model in MODELS.items()}
    models |= {("hz/state", name): fields(model) for name, model in PAYLOADS.items()}
    differ = sorted(key for key in catalogued.keys() | models.keys() if catalogued.get(key) != models.get(key))
    assert not differ, f"update hz/codes/event_kinds.py for {differ}: the models say {[models.get(k) for k in differ]}"


# --- every example raises its code ----------------------------------------------------------------


def _by(proof: str) -> list[Any]:
    return [pytest.param(code, id=code.code) for code in CODES if code.proof == proof]


def _write(files: tuple[tuple[str, str], ...], repo: Path) -> None:
    config_home = Path(os.environ["HZ_CONFIG_HOME"])
    for name, text in files:
        path = config_home / name.removeprefix("$HZ_CONFIG_HOME/") if name.startswith("$") else repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("code", _by("validate"))
def test_the_example_makes_validate_report_its_code_and_no_other(code: Code, repo: Path, hz: Any) -> None:
    _write(code.example, repo)
    result = hz("workflow", "validate", "--json")
    findings = json.loads(result.out)
    assert {finding["code"] for finding in findings} == {code.code}, result.out
    assert {finding["severity"] for finding in findings} == {code.severity}
    assert result.exit_code == (1 if code.severity == "error" else 0)


@pytest.mark.parametrize("code", _by("event"))
def test_the_example_makes_the_state_lint_report_its_code_and_no_other(code: Code) -> None:
    from hz.gitstate.lint import check_event_file

    ((path, text),) = code.example
    findings = check_event_file(path, text.encode())
    assert {(finding.code, finding.severity) for finding in findings} == {(code.code, code.severity)}


def test_the_examples_start_from_clean_files(repo: Path, hz: Any) -> None:
    """Each example differs from a clean contract or event, so the code comes from the difference."""
    from hz.codes.contract_example import BASE, DIGEST
    from hz.codes.state_codes import EVENT, EVENT_PATH
    from hz.gitstate.lint import check_event_file

    _write(((DIGEST, BASE),), repo)
    assert json.loads(hz("workflow", "validate", "--json").out) == []
    assert check_event_file(EVENT_PATH, EVENT.encode()) == []


def _named_in_code(path: Path) -> set[str]:
    """Codes a test module names in its code: string constants that are not docstrings or comments."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return {
        found
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        for found in CODE.findall(node.value)
    }


def test_codes_without_a_runnable_example_are_asserted_by_other_tests() -> None:
    named: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        if path.name not in OWN_TESTS:
            named |= _named_in_code(path)
    untested = {code.code for code in CODES if code.proof == "tests"} - named
    assert not untested, f"write a test that triggers {sorted(untested)} and asserts the code"
