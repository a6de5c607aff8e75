"""HZC023: under `[state]`, `hz workflow validate` warns about a team contract that has no `id:`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .contracts import contract, write

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult

STATE = '[state]\nremote = "origin"\n'
ID = "01JD8Z6Q4W3N5V7X9Y2B4C6D8F"


def with_id(name: str, **kwargs: Any) -> str:
    return contract(name, **kwargs).replace("kind: responsibility\n", f"kind: responsibility\nid: {ID}\n", 1)


def codes(hz: Hz) -> list[tuple[str, str, int, str]]:
    result = hz("workflow", "validate", "--json")
    assert result.exit_code == 0, result.out
    return [(d["code"], d["severity"], d["line"], d["path"]) for d in json.loads(result.out)]


def test_a_team_contract_without_an_id_under_state_is_a_warning(hz: Hz, repo: Path) -> None:
    (repo / "hz.toml").write_text(STATE, encoding="utf-8")
    write(repo / "workflows", "digest")
    assert codes(hz) == [("HZC023", "warning", 2, "workflows/digest.prose.md")]
    text = hz("workflow", "validate")
    assert (text.exit_code, text.out.splitlines()) == (0, [
        "workflows/digest.prose.md:2:7  HZC023  id",
        "  this team contract has no id, and hz.toml has [state]: no tick runs it (its lease and its receipts on "
        "hz/state are named by the id)",
        "  hint: add `id: <a fresh 26-character id>` to the frontmatter; mint one with "
        "`python -c 'import ulid; print(ulid.ULID())'`, never copy another contract's",
        "2 contracts checked: 1 warning",
    ])  # fmt: skip


def test_an_hz_toml_that_does_not_parse_counts_as_state_as_for_the_tick(hz: Hz, repo: Path) -> None:
    (repo / "hz.toml").write_text("[state\n", encoding="utf-8")
    write(repo / "workflows", "digest")
    assert [c[0] for c in codes(hz)] == ["HZC023"]


@pytest.mark.parametrize(
    ("toml", "text"),
    [
        (STATE, with_id("digest")),  # it has an id
        ('[forge]\nrepo = "acme/team"\n', contract("digest")),  # no [state]: the owner runs it alone
        (None, contract("digest")),  # no hz.toml at all
        (STATE, contract("digest", scope="personal", inputs={"c": "git:log"})),  # a member's own contract
    ],
    ids=["with-id", "no-state", "no-hz-toml", "personal"],
)
def test_no_warning_where_the_id_is_not_needed(hz: Hz, repo: Path, toml: str | None, text: str) -> None:
    if toml is not None:
        (repo / "hz.toml").write_text(toml, encoding="utf-8")
    write(repo / "workflows", "digest", text)
    assert codes(hz) == []


def test_a_single_file_validated_under_state_is_warned_too(hz: Hz, repo: Path) -> None:
    (repo / "hz.toml").write_text(STATE, encoding="utf-8")
    path = write(repo / "workflows", "digest")
    result = hz("workflow", "validate", str(path))
    assert (result.exit_code, "HZC023" in result.out) == (0, True), result.out
