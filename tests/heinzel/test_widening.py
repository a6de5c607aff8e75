"""What counts as widening a contract, key by key."""

from __future__ import annotations

import pytest

from hz.heinzel.versions import compile_text
from hz.heinzel.widening import widened
from tests.heinzel.conftest import CONTRACT


def _widens(new_text: str) -> list[str]:
    old = compile_text(CONTRACT, label="old", namespace="me")
    new = compile_text(new_text, label="new", namespace="me")
    return widened(old.frontmatter, new.frontmatter)


@pytest.mark.parametrize(
    ("old", "new", "keys"),
    [
        ("window: 7d", "window: 14d", ["hz.inputs.merged"]),
        ("window: 7d", "window: 3d", []),
        ('source: "git:log"', 'source: ["git:log", "git:."]', ["hz.inputs.merged"]),
        ('schedule: "0 15 * * FRI"', 'schedule: "0 15 * * *"', ["hz.schedule"]),
        ('schedule: "0 15 * * FRI"', 'schedule: "0 17 * * FRI"', []),
        ('owner: "@priya"', 'owner: "@theo"', ["hz.owner"]),
        ("scope: personal", 'scope: personal\n  maintainers: ["@theo"]', ["hz.maintainers"]),
        ("scope: personal", "scope: personal\n  cost: { max_tokens: 9000 }\n  tools: [\"hz:git.log.read\"]",
         ["hz.tools"]),
        ('target: "state:me/weekly/{slot:%G-W%V}.md"', 'target: "state:team/weekly.md"', ["hz.outputs.report"]),
        ("Every Friday afternoon", "On Fridays", []),
    ],
)  # fmt: skip
def test_widening_by_key(old: str, new: str, keys: list[str]) -> None:
    assert old in CONTRACT
    assert _widens(CONTRACT.replace(old, new)) == keys


def test_lowering_a_cap_narrows_and_raising_it_widens() -> None:
    capped = CONTRACT.replace("scope: personal", "scope: personal\n  cost: { max_tokens: 20000 }")
    base = compile_text(capped, label="old", namespace="me")
    lower = compile_text(capped.replace("20000", "10000"), label="new", namespace="me")
    higher = compile_text(capped.replace("20000", "40000"), label="new", namespace="me")
    assert widened(base.frontmatter, lower.frontmatter) == []
    assert widened(base.frontmatter, higher.frontmatter) == ["hz.cost.max_tokens"]
