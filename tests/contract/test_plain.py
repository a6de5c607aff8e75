"""A compile result as plain JSON data and back: the same result under a new label, the same positions,
and nothing but `PlainInvalid` for data that `to_plain` did not write."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hz.contract.load import Contract, LoadResult, _relabel, load_contract, load_text
from hz.contract.model import ContractFrontmatter
from hz.contract.plain import PlainInvalid, from_plain, to_plain
from hz.contract.text import normalize, split_frontmatter
from hz.contract.yamlload import load_mapping

from .corpus_odd import SHAPES
from .samples import GOOD, variant
from .test_loader_fuzz import BODY, FRONTMATTER, KEYS, VALUES

LABEL = Path("elsewhere/moved.prose.md")
PROSE = sorted((Path(__file__).parent / "prose_corpus").glob("*.prose.md"))

# Every key the format knows, each set once, and a body the frontmatter's names match.
FULL = """---
name: full-house
kind: responsibility
id: 01KD0000000000000000000000
version: 1.2.0-rc.1
description: Every key hz knows, set once.
x-other: {ignored: yes}
hz:
  schema: 1
  title: Full house
  owner: "@org/team"
  scope: personal
  maintainers: ["@a", "@b"]
  tags: [one, two-three]
  schedule: ["0 8 * * MON", {cron: "30 9 * * *", tz: Europe/Berlin}]
  freshness: 36h
  on: [commits, feed.title]
  inputs:
    commits: {source: "git:log", window: 168h, recheck: 90m}
    feed:
      source: ["rss:https://example.org/a", "rss:https://example.org/b"]
      query: "x > 1"
      facets: [title, body]
      stage: draft
      required: false
  outputs:
    digest: {target: "state:reports/digest.md", facets: [summary], format: json}
  publishes:
    - {action: github.issue.comment, output: digest, target: "gh:issue/1", auto_approve: small-edits}
  agent: {runner: codex, model: big, effort: xhigh, max_turns: 12}
  tools: ["hz:state.read", "cli:git"]
  timeout: 3600s
  retries: {max: 4, backoff: 2w}
  concurrency: {limit: 3, behavior: skip}
  catch_up: all
  cost: {max_tokens: 20000, max_usd_per_day: 5}
  idempotency: "{slot}-{memo_key}"
  overrides: "base:weekly-digest"
  render_on_schedule: if-moved
---

# Full house

### Goal

It holds.

### Requires

- `commits`: the log.
- `feed`: the feed.

### Maintains

- `digest`: the page.

#### summary

Material: the gist.

### Done when

- [ ] it is done
"""

EMBEDDED = "\n\n~~~ yaml\n" + GOOD[4:].replace("\n---\n", "\n~~~\n", 1)
# Where the canonical text no longer holds the YAML as written, so its text travels along.
LEADING_BLANKS = GOOD.replace("---\n", "---\n\n\n", 1)
TRAILING_BLANKS = variant("  scope: team\n", "  scope: team   \n\n\n")
DOCUMENT_START = "```yaml\n---\n" + GOOD[4:].replace("\n---\n", "\n```\n", 1)
SAMPLES = {
    "good": GOOD,
    "full": FULL,
    "embedded": EMBEDDED,
    "leading-blanks": LEADING_BLANKS,
    "trailing-blanks": TRAILING_BLANKS,
    "document-start": DOCUMENT_START,
    "body-broken": GOOD.replace("### Done when", "### Criteria"),
    "frontmatter-broken": variant("scope: team", "scope: everyone"),
}


def round_trip(result: LoadResult, label: Path = LABEL) -> LoadResult:
    """`result` through plain data and JSON bytes, checked equal to what relabelling gives."""
    plain = to_plain(result)
    data = orjson.loads(orjson.dumps(plain))
    assert data == plain  # JSON types only: a tuple would come back a list and differ
    back = from_plain(data, label)
    assert back == _relabel(result, label)
    assert (back.contract is back.draft) == (result.contract is result.draft)
    assert all(d.path == str(label) for d in back.diagnostics)
    for contract, original in ((back.contract, result.contract), (back.draft, result.draft)):
        assert (contract is None) == (original is None)
        if contract is not None and original is not None:
            _same_contract(contract, original, label)
    return back


def _same_contract(contract: Contract, original: Contract, label: Path) -> None:
    assert contract.path == label
    assert isinstance(contract.sections, MappingProxyType)
    assert isinstance(contract.section_fingerprints, MappingProxyType)
    assert list(contract.sections) == list(original.sections)
    assert list(contract.frontmatter.hz.inputs) == list(original.frontmatter.hz.inputs)
    assert contract.frontmatter.model_fields_set == original.frontmatter.model_fields_set
    assert contract.frontmatter.hz.model_fields_set == original.frontmatter.hz.model_fields_set
    assert contract.locate(("hz", "scope")) == original.locate(("hz", "scope"))


@pytest.fixture(scope="module")
def odd(tmp_path_factory: pytest.TempPathFactory) -> dict[str, LoadResult]:
    """Every odd shape and the prose corpus, loaded from files as hz reads them."""
    folder = tmp_path_factory.mktemp("odd")
    out: dict[str, LoadResult] = {}
    for name, make in SHAPES.items():
        if name == "many-keys":
            continue  # a second to compile; its 5000 findings travel as any other findings do
        path = folder / f"{name}.prose.md"
        path.write_bytes(make(name))
        out[name] = load_contract(path)
    for path in PROSE:
        out[f"prose/{path.name}"] = load_contract(path)
    for name, text in SAMPLES.items():
        out[f"sample/{name}"] = load_text(text, path=f"workflows/{name}.prose.md")
    out["stem-differs"] = load_contract(folder / "other.prose.md", text=GOOD)
    out["defaults"] = load_text(GOOD, defaults={"tags": ["digest"], "tz": "UTC", "cost": {"max_usd_per_day": 2}})
    out["namespace"] = load_text(GOOD, namespace="ops")
    return out


def test_the_whole_corpus_round_trips_through_json(odd: dict[str, LoadResult]) -> None:
    kinds = {(r.contract is not None, r.draft is not None, bool(r.diagnostics)) for r in odd.values()}
    assert kinds >= {(True, True, False), (True, True, True), (False, True, True), (False, False, True)}
    for result in odd.values():
        round_trip(result)
        round_trip(result, Path("-rf with space.prose.md"))


def test_samples_keep_their_shape() -> None:
    for name in ("good", "full", "embedded"):
        result = load_text(SAMPLES[name])
        assert result.contract is not None and result.contract is result.draft, name
        plain = to_plain(result)
        assert plain["contract"] == "draft" and plain["draft"]["yaml"] is None, name  # the YAML is in the text
    for name in ("leading-blanks", "trailing-blanks", "document-start"):
        result = load_text(SAMPLES[name])
        assert result.draft is not None, name
        assert to_plain(result)["draft"]["yaml"] == split_frontmatter(normalize(SAMPLES[name])).yaml  # type: ignore[union-attr]
    broken = load_text(SAMPLES["body-broken"])
    assert broken.contract is None and broken.draft is not None
    assert from_plain(to_plain(broken), LABEL).contract is None
    # results no compile gives, built by hand, travel whole too: a contract that is not the draft, no locator
    good = load_text(GOOD).contract
    assert good is not None and broken.draft is not None
    round_trip(LoadResult(good, (), None))
    assert round_trip(LoadResult(good, (), broken.draft)).contract is not None
    unplaced = round_trip(LoadResult(None, (), dataclasses.replace(good, _where=None))).draft
    assert unplaced is not None and unplaced.locate(("hz", "scope")) == (1, 1)


def _paths(value: Any, at: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [at]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _paths(inner, (*at, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            out += _paths(inner, (*at, index))
    return out


@pytest.mark.parametrize("name", list(SAMPLES))
def test_positions_after_the_round_trip_are_the_originals(name: str) -> None:
    text = SAMPLES[name]
    result = load_text(text)
    split = split_frontmatter(normalize(text))
    if name == "frontmatter-broken":
        return
    assert split is not None and result.draft is not None
    back = from_plain(orjson.loads(orjson.dumps(to_plain(result))), LABEL).draft
    assert back is not None
    paths = _paths(load_mapping(split.yaml))
    absent = [("hz", "publishes", 3, "action"), ("nowhere",), ("hz", "inputs", "none", "window")]
    assert len(paths) > 10
    for loc in paths + absent:
        assert back.locate(loc) == result.draft.locate(loc), loc
        assert back.locate_key(loc) == result.draft.locate_key(loc), loc


def test_every_frontmatter_field_survives_dump_and_validation() -> None:
    frontmatter = load_text(FULL).contract
    assert frontmatter is not None
    model = frontmatter.frontmatter
    assert model.hz.model_fields_set == set(type(model.hz).model_fields)  # FULL sets every key of hz
    for unset in (False, True):
        dumped = model.model_dump(mode="json", by_alias=True, exclude_unset=unset)
        again = ContractFrontmatter.model_validate(orjson.loads(orjson.dumps(dumped)))
        assert again == model and again.model_dump() == model.model_dump()
    slot = load_text(FULL.replace("freshness: 36h", "freshness: slot")).contract
    again_slot = round_trip(load_text(slot.text)).contract if slot is not None else None
    assert slot is not None and again_slot is not None and again_slot.frontmatter.hz.freshness == "slot"
    assert to_plain(load_text(FULL))["draft"]["frontmatter"]["hz"]["retries"] == {"max": 4, "backoff": "2w"}


# Valid optional keys of `hz:`, so generated contracts compile and carry drafts of every kind.
OPTIONAL = {
    "tags": st.lists(st.sampled_from(["a", "b-c", "digest"]), unique=True, max_size=3),
    "maintainers": st.lists(st.sampled_from(["@a", "@org/x"]), unique=True, max_size=2),
    "freshness": st.sampled_from(["slot", "1h", "60m", "7d", "2w"]),
    "timeout": st.sampled_from(["90s", "15m", "1h"]),
    "retries": st.fixed_dictionaries({}, optional={"max": st.integers(0, 10), "backoff": st.sampled_from(["1d"])}),
    "cost": st.fixed_dictionaries(
        {}, optional={"max_tokens": st.integers(1000, 10**8), "max_usd_per_day": st.floats(0.001, 10**6)}
    ),
    "agent": st.fixed_dictionaries({}, optional={"max_turns": st.integers(1, 200), "effort": st.just("low")}),
    "schedule": st.sampled_from(["0 1 * * *", [{"cron": "5 4 * * SUN", "tz": "Asia/Tokyo"}], None]),
    "catch_up": st.sampled_from(["latest", "all", "skip"]),
    "render_on_schedule": st.sampled_from(["always", "if-moved"]),
}
NOISE = st.text(alphabet=st.sampled_from(list("#-*+ `>\n\tab<!->1.~_=:")), max_size=120)


@st.composite
def contracts(draw: st.DrawFn) -> str:
    """GOOD with random valid keys, random Markdown noise in its body and a random form."""
    data = load_mapping(FRONTMATTER + "\n")
    data["hz"].update(draw(st.fixed_dictionaries({}, optional=OPTIONAL)))
    yaml = json.dumps(data, indent=draw(st.sampled_from([None, 1, 2])))
    body = BODY.replace("### Done when", draw(NOISE) + "\n### Done when") if draw(st.booleans()) else draw(NOISE)
    lead = draw(st.sampled_from(["", "\n", "  \n"]))
    if draw(st.booleans()):
        return f"---\n{lead}{yaml}\n---\n{body}"
    return f"{lead}```yaml\n{yaml}\n```\n{body}"


@settings(max_examples=100, deadline=None)
@given(contracts(), st.sampled_from([None, {"tz": "UTC"}, {"owner": "@x", "tags": ["z"]}]))
def test_generated_contracts_round_trip(text: str, defaults: dict[str, Any] | None) -> None:
    result = load_text(text, path="workflows/generated.prose.md", defaults=defaults)
    assert result.draft is not None
    back = round_trip(result)
    assert back.draft is not None and back.draft.locate(("hz", "outputs")) == result.draft.locate(("hz", "outputs"))


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=6), st.sampled_from([BODY, "", "## Goal\n\nx\n", "#### x\n- `a`: b\n"]))
def test_random_frontmatter_round_trips(data: dict[str, Any], body: str) -> None:
    round_trip(load_text(f"---\n{json.dumps(data)}\n---\n{body}"))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_round_trips(text: str) -> None:
    round_trip(load_text(text))


# Hostile plain data: junk of every JSON type and some that JSON never gives.
JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([-1, 2**31, 2**63, 10**400, "draft", "error", "file", float("nan"), b"x", (1,)])
    | st.floats()
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
VALID = {name: to_plain(load_text(SAMPLES[name])) for name in ("full", "body-broken", "frontmatter-broken")}


def _mutate(data: st.DataObject, plain: dict[str, Any]) -> dict[str, Any]:
    mutated = copy.deepcopy(plain)
    node: Any = mutated
    while True:  # walk down a random path, stopping at each level one time in five
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = data.draw(st.sampled_from(keys))
        if not isinstance(node[key], dict | list) or data.draw(st.integers(0, 4)) == 0:
            break
        node = node[key]
    action = data.draw(st.sampled_from(["drop", "replace", "insert"]))
    if action == "insert":
        if isinstance(node, dict):
            node[data.draw(st.text(max_size=6))] = data.draw(JUNK)
        else:
            node.insert(data.draw(st.integers(0, len(node))), data.draw(JUNK))
    elif keys:
        if action == "drop":
            del node[key]
        else:
            node[key] = data.draw(JUNK)
    return mutated


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(list(VALID)))
def test_mutated_plain_data_raises_only_plain_invalid(data: st.DataObject, name: str) -> None:
    try:
        result = from_plain(_mutate(data, VALID[name]), LABEL)
    except PlainInvalid:
        return
    assert isinstance(result, LoadResult)  # a harmless change (another message) is still a result


def _nodes(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [at] if at else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in children:
        out += _nodes(inner, (*at, key))
    return out


@pytest.mark.parametrize("name", list(VALID))
def test_every_node_replaced_by_junk_or_dropped_is_refused(name: str) -> None:
    plain = VALID[name]
    refused = 0
    for at in _nodes(plain):
        for replace in (True, False):
            mutated = copy.deepcopy(plain)
            parent = mutated
            for key in at[:-1]:
                parent = parent[key]
            if replace:
                parent[at[-1]] = {"x": [[]]}
            elif isinstance(parent, dict) and (at[0] != "draft" or at[1:2] != ("frontmatter",)):
                del parent[at[-1]]  # a frontmatter key may be optional; every other key is required
            else:
                continue
            with pytest.raises(PlainInvalid):
                from_plain(mutated, LABEL)
            refused += 1
    assert refused > 10


@pytest.mark.parametrize(
    "value", [None, [], "", "draft", 0, 1.5, True, b"{}", (), {}, {"format": 1}, [to_plain(load_text(GOOD))]]
)
def test_what_is_not_a_result_is_refused(value: Any) -> None:
    with pytest.raises(PlainInvalid):
        from_plain(value, LABEL)


def test_tampered_values_are_refused() -> None:
    plain = to_plain(load_text(GOOD))

    def refused(edit: Any) -> None:
        mutated = copy.deepcopy(plain)
        edit(mutated)
        with pytest.raises(PlainInvalid):
            from_plain(mutated, LABEL)

    refused(lambda p: p["draft"]["frontmatter"]["hz"].update(owner="nobody"))  # the model refuses it
    refused(lambda p: p["draft"]["frontmatter"]["hz"]["inputs"]["commits"].update(window="99999999999w"))
    refused(lambda p: p["draft"]["frontmatter"].update(name="other"))  # no longer the contract's name
    refused(lambda p: p["draft"]["sections"][0].__setitem__(3, 10**30))  # a huge line
    refused(lambda p: p["draft"]["frontmatter"]["hz"].update(agent={"max_turns": 10**5000}))
    refused(lambda p: p["draft"]["sections"][0].__setitem__(3, True))
    refused(lambda p: p["draft"]["sections"].append(p["draft"]["sections"][0]))  # a section twice
    refused(lambda p: p.update(format=2))
    refused(lambda p: p.update(draft=None))  # "contract": "draft" without a draft
    refused(lambda p: p["draft"].update(yaml_line=None, yaml="a: 1\n"))
    # the format of the diagnostics: line, column, code, severity, loc, message, hint
    broken = to_plain(load_text(SAMPLES["frontmatter-broken"]))
    broken["diagnostics"][0][3] = "fatal"
    with pytest.raises(PlainInvalid):
        from_plain(broken, LABEL)
