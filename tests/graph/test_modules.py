"""A module contract (`hz:my-week`) is in a repository's graph only where it was adopted.

The module layer is a catalogue every repository is offered; a team that never adopted `hz:my-week` must
not see it in its graph. It shows when a shown contract reads it, or when this home runs an agent made
from the module's own file.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from tests.compile.contracts import write

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult


def test_a_team_that_never_adopted_a_module_contract_does_not_see_it(hz: Hz, repo: Path) -> None:
    write(repo / "workflows", "digest")
    assert hz("graph").out == "0  team:digest\n"
    assert [n["name"] for n in json.loads(hz("graph", "--json").out)["nodes"]] == ["team:digest"]
    assert "my-week" not in hz("graph", "--mermaid").out


def test_a_module_contract_a_contract_reads_is_shown_upstream_of_it(hz: Hz, repo: Path) -> None:
    write(repo / "workflows", "recap", scope="personal", inputs={"week": "contract:hz/my-week#done"})
    assert hz("graph").out == "0  hz:my-week\n1  team:recap  <- hz:my-week#done\n"


def test_a_module_contract_this_home_adopted_is_shown(hz: Hz, repo: Path) -> None:
    write(repo / "workflows", "digest")
    module_file = Path(str(files("hz").joinpath("workflows", "my-week.prose.md")))
    made = hz("heinzel", "new", "my-week", "--from", str(module_file))
    assert made.exit_code == 0, made.err
    assert hz("graph").out == "0  hz:my-week\n0  team:digest\n"
    assert hz("heinzel", "retire", "my-week").exit_code == 0  # a retired agent no longer adopts it
    assert hz("graph").out == "0  team:digest\n"
