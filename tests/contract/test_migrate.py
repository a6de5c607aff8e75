"""Schema migration: pure steps applied in order, the input untouched, too-new schemas refused."""

from __future__ import annotations

from typing import Any

import pytest

from hz.commands.workflow_migrate import dump_yaml
from hz.contract.migrate import SchemaTooNew, migrate
from hz.contract.yamlload import load_mapping


def _rename_owner(data: dict[str, Any]) -> dict[str, Any]:
    hz = dict(data["hz"])
    hz["owner"] = hz.pop("accountable")
    return {**data, "hz": hz}


def _add_scope(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "hz": {**data["hz"], "scope": "team"}}


STEPS = {1: _rename_owner, 2: _add_scope}


def test_steps_apply_in_order_and_leave_the_input_alone() -> None:
    old = {"name": "x", "hz": {"schema": 1, "accountable": "@a"}}
    new = migrate(old, migrations=STEPS, newest=3)
    assert new == {"name": "x", "hz": {"schema": 3, "owner": "@a", "scope": "team"}}
    assert old == {"name": "x", "hz": {"schema": 1, "accountable": "@a"}}
    assert migrate(new, migrations=STEPS, newest=3) is new


def test_a_newer_schema_is_refused() -> None:
    with pytest.raises(SchemaTooNew, match=r"^hz.schema is 4, but this hz reads schema 3 at most$"):
        migrate({"hz": {"schema": 4}}, migrations=STEPS, newest=3)


def test_missing_or_odd_schema_is_left_to_validation() -> None:
    for data in ({"hz": {}}, {"hz": {"schema": "1"}}, {"hz": {"schema": True}}, {"hz": []}):
        assert migrate(data, migrations=STEPS, newest=3) is data  # type: ignore[arg-type]


def test_dumped_frontmatter_reads_back_the_same() -> None:
    data = {"name": "x", "hz": {"schema": 1, "on": ["a"], "outputs": {"o": {"facets": ["f"]}}}}
    assert load_mapping(dump_yaml(data)) == data
    assert dump_yaml(data).startswith("name: x\nhz:\n")


def test_a_file_is_rewritten_frontmatter_only() -> None:
    from hz.commands.workflow_migrate import migrate_text

    body = "\n# Title\n\n### Goal\n\nStays  as written.   \n"
    old = "---\nname: x  # a comment\nhz:\n  schema: 1\n  accountable: '@a'\n---\n" + body
    found, text = migrate_text(old, migrations=STEPS, newest=3)
    assert found == 1
    assert text == "---\nname: x\nhz:\n  schema: 3\n  owner: '@a'\n  scope: team\n---\n" + body
    assert migrate_text(text, migrations=STEPS, newest=3) == (3, None)
