"""The frontmatter's C loader, set up once (`hz.contract.yamlload._load_c`), reads every text as ruamel's
`YAML(typ="safe", pure=False).load` read it before (issue 22, adoption's cost): the same values of the
same types, or a failure where that failed. Fingerprints are made of what it returns, so any difference
would move them; the reference here is the loader as it was, a 1.2 resolver and nothing else."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
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


def _outcome(load: Any, text: str) -> Any:
    """What `load` made of `text`, typed, or the kind of its failure (on any, load_mapping asks the pure parser)."""
    try:
        return ("ok", _typed(load(text)))
    except Exception as exc:
        return ("failed", type(exc).__name__)


def _same(text: str) -> None:
    assert _outcome(_load_c, text) == _outcome(_reference, text), text


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


# --- corners, and whole contracts, against ruamel's own load -----------------------------------------------------


def _pure12(text: str) -> Any:
    yaml = YAML(typ="safe", pure=True)
    yaml.Resolver = _Yaml12
    return yaml.load(text)


EDGES = [
    "a: !!str 12\nb: !!int '0o17'\nc: !!float '1'\nd: !!bool yes\ne: !!null ''\nf: !!int 1_000\n",
    "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n",
    "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nc:\n  <<: [*a, *b]\n",
    "<<: {a: 1}\nb: 2\n",
    "a: 1\na: 2\n",
    "{a: 1, a: 1}\n",
    "a:\nb: ~\nc: null\nd: ''\ne: Null\nf: NULL\n",
    "a: 0o17\nb: 017\nc: 0x1F\nd: 1_000\ne: .inf\nf: -.INF\ng: .nan\nh: 1e3\ni: +12\nj: 0b11\n",
    "a: 0.\nb: .5\nc: -0\nd: 00\ne: 09\nf: 1e\ng: 1.0e+3\nh: 0o\ni: 0x\nj: +.inf\n",
    "a: 2026-10-26\nb: 2026-10-26T11:20:00Z\nc: 2026-10-26 11:20:00.5 +02:00\nd: !!timestamp 2026-10-26\n",
    "a: yes\nb: on\nc: True\nd: FALSE\ne: y\nf: 1:30\ng: 190:20:30\n",
    "a: " + "x" * 200_000 + "\n",
    "a: !!set {x, y}\nb: !!omap [x: 1, y: 2]\nc: !!binary aGVsbG8=\n",
    "a: !custom x\n",
    "? [1, 2]\n: v\n",
    "\ufeffa: 1\n",
    "a: \u0663\nb: \uff11\n\u00e9: 1\n\u00f1: ~\n",
    "a: |\n  x\n  y\nb: >-\n  x\n  y\n",
    "a: &x 1\nb: *x\nc: *x\nd:\n  - &s [1]\n  - *s\n",
    "a: @x\n",
    "a: `x`\n",
    "a: %x\n",
    "a: !!merge 1\nb: <<\nc: =\n",
    "&a a: b\n*a : c\n",
    "---\na: 1\n...\n",
    "---\na: 1\n---\nb: 2\n",
    "",
    "[1, 2]\n",
    "%TAG ! tag:x,2000:\n---\na: !b 1\n",
]


@pytest.mark.parametrize("text", EDGES, ids=range(len(EDGES)))
def test_yaml_corners_load_as_ruamel_loads_them(text: str) -> None:
    """The loader set up once gives what ruamel's own C load gave (the old path), and what its pure loader
    gives under YAML 1.2: the same values, of the same types, or a failure where that fails."""
    from hz.contract.yamlload import _c_yaml, _load_c

    assert _outcome(_load_c, text) == _outcome(_c_yaml().load, text)
    assert _outcome(_load_c, text) == _outcome(_pure12, text)


def test_a_tab_after_a_colon_loads_as_the_old_c_path_loaded_it() -> None:
    """libyaml takes a tab as the space after `key:`; ruamel's pure scanner refuses it. Not new: the C path
    read it so before too, and fingerprints rest on that."""
    from hz.contract.yamlload import _c_yaml, _load_c, load_mapping

    assert _outcome(_load_c, "a: \t1\n") == _outcome(_c_yaml().load, "a: \t1\n") == ("ok", _typed({"a": 1}))
    assert load_mapping("a: \t1\n") == {"a": 1}


_CONTRACT_EDITS = [
    ("  window: 7d", "  window: &w 7d\n      extra: *w"),
    ('  schedule: "0 8 * * MON"', "  schedule: 0 8 * * MON"),
    ("description: Keeps", "description: !!str Keeps"),
    ("  title: Weekly change digest", "  title: " + "T" * 5000),
    ("  schema: 1", "  schema: 0o1"),
    ("  schema: 1", "  schema: 1_0"),
    ("  schema: 1", "  schema: .inf"),
    ("  schema: 1", "  schema: 2026-10-26"),
    ("  schema: 1", "  schema: ~"),
    ("  schema: 1", "  schema: 1\n  schema: 1"),
    ("  on: [commits]", "  on: [commits]\n  <<: {title: merged}"),
    ("  on: [commits]", "  on:"),
]


@pytest.mark.parametrize("edit", _CONTRACT_EDITS, ids=range(len(_CONTRACT_EDITS)))
def test_a_contracts_fingerprints_are_those_of_the_old_load(edit: tuple[str, str], monkeypatch: Any) -> None:
    """Through `load_text`: the same contract, fingerprints and findings with ruamel's own C load in place
    of the loader set up once."""
    from hz.contract import yamlload
    from hz.contract.load import load_text
    from tests.contract.samples import GOOD

    text = GOOD.replace(*edit)
    assert text != GOOD

    def seen(result: Any) -> Any:
        found = result.contract or result.draft
        fps = (
            None
            if found is None
            else (found.source_fingerprint, found.contract_fingerprint, dict(found.section_fingerprints))
        )
        return fps, [(d.code, d.message) for d in result.diagnostics]

    new = seen(load_text(text))
    monkeypatch.setattr(yamlload, "_load_c", lambda t: yamlload._c_yaml().load(t))
    assert seen(load_text(text)) == new
