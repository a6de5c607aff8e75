"""The committed JSON Schema is exactly what the models generate."""

from __future__ import annotations

from pathlib import Path

from hz.contract.schema import SCHEMA_PATH, frontmatter_schema, installed_schema, render

ROOT = Path(__file__).resolve().parents[2]


def test_committed_schema_matches_the_models() -> None:
    committed = (ROOT / SCHEMA_PATH).read_text(encoding="utf-8")
    assert committed == render(), "run: .venv/bin/python -m hz.contract.schema"


def test_the_package_ships_the_same_schema() -> None:
    # hints name this file: every installed hz has it (package data), unlike docs/ of the source tree
    assert installed_schema().is_relative_to(ROOT / "hz")
    assert installed_schema().read_text(encoding="utf-8") == render()


def test_schema_names_the_format() -> None:
    schema = frontmatter_schema()
    assert schema["$id"] == "urn:heinzel:contract-frontmatter:1"
    assert schema["required"] == ["name", "kind", "description", "hz"]
    assert schema["additionalProperties"] is False
    assert schema["patternProperties"] == {"^x-": {}}
    hz = schema["$defs"]["Hz"]
    assert hz["properties"]["schema"]["const"] == 1
    assert set(hz["required"]) == {"schema", "title", "owner", "scope", "outputs"}
    assert hz["properties"]["render_on_schedule"]["default"] == "always"
