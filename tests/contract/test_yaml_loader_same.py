"""The frontmatter's C loader, set up once (`hz.contract.yamlload._load_c`), reads every text as ruamel's
`YAML(typ="safe", pure=False).load` read it before (issue 22, adoption's cost): the same values of the
same types, or a failure where that failed. Fingerprints are made of what it returns, so any difference
would move them; the reference here is the loader as it was, a 1.2 resolver and nothing else."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.resolver import VersionedResolver

from hz.contract.yamlload import _load_c


class _Yaml12(VersionedResolver):  # type: ignore[misc]
    @property
    def processing_version(self) -> tuple[int, int]:
        return (1, 2)


def _reference(text: str) -> Any:
    yaml = YAML(typ="safe", pure=False)
    yaml.Resolver = _Yaml12
    return yaml.load(text)


def _typed(value: Any) -> Any:
    """`value` with every type spelled out: True == 1 == 1.0 in Python, and NaN equals nothing."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, repr(value))


def _same(text: str) -> None:
    try:
        expected: Any = ("ok", _typed(_reference(text)))
    except Exception as exc:  # any failure: load_mapping then asks the pure parser
        expected = ("failed", type(exc).__name__)
    try:
        got: Any = ("ok", _typed(_load_c(text)))
    except Exception as exc:
        got = ("failed", type(exc).__name__)
    assert got == expected, text


# Plain scalars of every implicit type YAML 1.2 and 1.1 know, and near misses of each.
PLAIN = st.sampled_from(
    ["", "~", "null", "Null", "NULL", "nul", "true", "True", "TRUE", "false", "yes", "no", "on", "off", "y", "n",
     "0", "-0", "+1", "12", "012", "0o17", "0x1F", "0b101", "1_000", "1:30", "190:20:30", "0.5", ".5", "5.", "-.5e3",
     "1e3", "1E-3", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "2026-10-26", "2026-10-26T11:20:00Z",
     "2026-10-26 11:20:00.5 +02:00", "2026-1-2", "<<", "=", "a b", "@x", "`x`", "%x", "x: y", "'q'", '"q"', "* * * * *",
     "0 8 31 2 *", "state:pulse/{slot:%Y}", "\u00e9t\u00e9", "\U0001f600", "-", "- x", "? x", "!x", "&a x", "*a"]
)  # fmt: skip
KEYS = st.sampled_from(["name", "hz", "on", "yes", "1", "null", "<<", "x-a", "a b", "schedule", "? k", "'k'"])
TAGS = st.sampled_from(["", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ", "!!binary ", "!!timestamp ", "!x "])


@st.composite
def block_yaml(draw: st.DrawFn, depth: int = 0) -> str:
    """A block mapping, nested with sequences, anchors, aliases, merges, tags, comments and flow bits."""
    lines: list[str] = []
    indent = "  " * depth
    for _ in range(draw(st.integers(1, 5))):
        key = draw(KEYS)
        shape = draw(st.integers(0, 5 if depth < 2 else 2))
        if shape <= 1:
            tag, value = draw(TAGS), draw(PLAIN)
            anchor = draw(st.sampled_from(["", "&a ", "&b "]))
            comment = draw(st.sampled_from(["", "  # c", " #c"]))
            lines.append(f"{indent}{key}: {anchor}{tag}{value}{comment}")
        elif shape == 2:
            items = draw(st.lists(PLAIN, max_size=4))
            lines.append(f"{indent}{key}: [{', '.join(items)}]")
        elif shape == 3:
            lines.append(f"{indent}{key}:")
            for item in draw(st.lists(PLAIN, min_size=1, max_size=3)):
                lines.append(f"{indent}  - {item}")
        elif shape == 4:
            lines.append(f"{indent}{key}: {draw(st.sampled_from(['*a', '*b', '|', '>-', '{a: 1, b: *a}']))}")
            lines.append(f"{indent}  {draw(PLAIN)}")
        else:
            lines.append(f"{indent}{key}:")
            lines.append(draw(block_yaml(depth + 1)))
    return "\n".join(lines)


@settings(max_examples=600, deadline=None)
@given(block_yaml())
def test_block_yaml_loads_the_same(text: str) -> None:
    _same(text + "\n")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("-`#*>[]{}:&!|%,'\"~.\n \tey0189aAnT+_\u00e9\ufeff"), max_size=200))
def test_yaml_punctuation_loads_the_same(text: str) -> None:
    _same(text)


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
        max_leaves=20,
    )
)
def test_json_loads_the_same(value: Any) -> None:
    _same(json.dumps(value))


def test_the_benchmarks_contract_and_the_samples_load_the_same() -> None:
    from tests.contract.samples import GOOD

    _same(GOOD[4:].split("\n---\n", 1)[0])
    _same("a: 1\na: 2\n")  # a duplicate key fails on both
    _same("%YAML 1.1\n---\na: yes\n")
