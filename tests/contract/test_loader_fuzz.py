"""The contract loader fuzzed: arbitrary text and randomly structured frontmatter never raise, every
finding is well formed, and the commands that load contracts never exit 3 on them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.contract.load import load_text
from hz.diagnostic import Diagnostic

from .samples import GOOD

CODE = re.compile(r"^HZC\d{3}$")
FRONTMATTER, BODY = GOOD[4:].split("\n---\n", 1)

KEYS = st.sampled_from(
    ["name", "kind", "description", "hz", "schema", "title", "owner", "scope", "schedule", "on", "inputs",
     "outputs", "source", "window", "facets", "target", "publishes", "agent", "max_turns", "cost", "x-a", "1"]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**30, max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["7d", "99999999999w", "0s", "-1d", "git:.", "feed://h/x", "@a", "0 8 31 2 *", "team", "*a"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=25,
)


def _well_formed(found: tuple[Diagnostic, ...]) -> None:
    for diagnostic in found:
        assert CODE.match(diagnostic.code), diagnostic
        assert diagnostic.line >= 1 and diagnostic.column >= 1, diagnostic
        assert diagnostic.severity in ("error", "warning") and diagnostic.message


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_never_raises(text: str) -> None:
    _well_formed(load_text(text).diagnostics)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("-`#*>[]{}:&!|%\n \t\ufeffa1"), max_size=300))
def test_markdown_and_yaml_punctuation_never_raises(noise: str) -> None:
    _well_formed(load_text(f"---\n{noise}\n---\n{noise}").diagnostics)
    _well_formed(load_text(f"---\n{FRONTMATTER}\n---\n{noise}").diagnostics)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6), st.sampled_from([BODY, "", "## Goal\n\nx\n", "#### x\n- `a`: b\n"]))
def test_structured_random_frontmatter_never_raises(data: dict[str, Any], body: str) -> None:
    # JSON is YAML, so any structure is written exactly, huge numbers and all
    _well_formed(load_text(f"---\n{json.dumps(data)}\n---\n{body}").diagnostics)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["hz", "name", "kind", "description"]), VALUES)
def test_one_key_of_a_good_contract_replaced_never_raises(key: str, value: Any) -> None:
    lines = FRONTMATTER.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] not in (" ", "")), len(lines))
    replaced = [*lines[:start], f"{key}: {json.dumps(value)}", *lines[end:]]
    _well_formed(load_text("---\n" + "\n".join(replaced) + "\n---\n" + BODY).diagnostics)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(KEYS, VALUES, max_size=5), noise=st.text(max_size=200))
def test_the_commands_never_exit_3(repo: Path, hz: Any, data: dict[str, Any], noise: str) -> None:
    folder = repo / "workflows"
    folder.mkdir(exist_ok=True)
    (folder / "good.prose.md").write_text(GOOD.replace("weekly-digest", "good"))
    (folder / "random.prose.md").write_text(f"---\n{json.dumps(data)}\n---\n{BODY}")
    (folder / "noise.prose.md").write_text(noise)
    for argv in (("workflow", "validate"), ("workflow", "show", "--json", "random"), ("graph",)):
        result = hz(*argv)
        assert result.exit_code in (0, 1), (argv, result.err)
    shown = hz("workflow", "show", "--json", "good")
    assert shown.exit_code == 0 and json.loads(shown.out)["ok"] is True
