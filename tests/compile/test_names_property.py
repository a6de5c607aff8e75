"""No silent shadowing, for any arrangement of same-named contracts across layers and overrides."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.contract.layers import ContractFile, Layer, LayerKind
from hz.contract.load import Contract, load_text
from hz.contract.names import Entry, check_names, may_override

from .contracts import contract

LAYERS: dict[str, Layer] = {
    "team": Layer("team", "team", Path("/r/workflows"), Path("/r")),
    "project": Layer("project", "project", Path("/r/.heinzel/workflows"), Path("/r")),
    "me": Layer("user", "me", Path("/c/workflows"), None),
    "alpha": Layer("module", "alpha", Path("/m/alpha/workflows"), None),
    "beta": Layer("module", "beta", Path("/m/beta/workflows"), None),
}
NAMES = ["one", "two"]


@cache
def loaded(namespace: str, name: str, scope: str, overrides: str | None) -> Contract:
    extra = f"  overrides: {overrides}" if overrides else ""
    result = load_text(contract(name, scope=scope, extra=extra), path=f"{name}.prose.md", namespace=namespace)
    assert result.contract is not None, result.diagnostics
    return result.contract


placements = st.lists(
    st.tuples(
        st.sampled_from(sorted(LAYERS)),
        st.sampled_from(NAMES),
        st.sampled_from(["team", "personal"]),
        st.one_of(st.none(), st.tuples(st.sampled_from(sorted(LAYERS)), st.sampled_from(NAMES))),
    ),
    max_size=8,
    unique_by=lambda p: (p[0], p[1]),
)


@settings(max_examples=150, deadline=None)
@given(placements)
def test_no_silent_shadowing(spec: list[tuple[str, str, str, tuple[str, str] | None]]) -> None:
    entries = []
    for namespace, name, scope, target in spec:
        layer = LAYERS[namespace]
        overrides = f"{target[0]}:{target[1]}" if target else None
        file = ContractFile(layer, layer.directory / f"{name}.prose.md")
        entries.append(Entry(file, loaded(namespace, name, scope, overrides)))
    result = check_names(entries)
    kinds: dict[str, LayerKind] = {e.file.qualified_name: e.file.layer.kind for e in entries}

    for replaced, replacing in result.overridden.items():
        assert kinds[replaced] != "team"  # nothing overrides a team contract
        by_name = {e.file.qualified_name: e for e in entries}
        assert may_override(by_name[replacing], by_name[replaced])

    for entry in entries:
        if entry.scope == "team" and entry.file.layer.local:
            assert entry.file.qualified_name in result.rejected  # HZC302

    for i, a in enumerate(entries):
        for b in entries[i + 1 :]:
            if a.file.name != b.file.name or a.file.layer.kind == b.file.layer.kind == "module":
                continue
            qa, qb = a.file.qualified_name, b.file.qualified_name
            related = result.overridden.get(qa) == qb or result.overridden.get(qb) == qa
            assert related or qa in result.rejected or qb in result.rejected, (qa, qb, result)
    assert result.rejected <= set(kinds)
    rejected_paths = {e.file.display for e in entries if e.file.qualified_name in result.rejected}
    assert {d.path for d in result.diagnostics} == rejected_paths  # every rejection says why
