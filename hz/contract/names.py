"""Names across layers: who may replace whom (`hz.overrides`), collisions, and resolving a bare name.

No silent shadowing: two contracts in different layers may share a name only when one of them names
the other in `hz.overrides`. A team contract may replace a module's; a project or user contract may
replace only a personal one; nothing local replaces a team contract. The replaced contract is disabled.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hz.contract.layers import RESOLUTION_ORDER, ContractFile, LayerKind
from hz.diagnostic import Diagnostic
from hz.errors import HzError

if TYPE_CHECKING:
    from hz.contract.load import Contract


@dataclass(frozen=True)
class Entry:
    """One contract file and what loading it produced (None when it did not compile)."""

    file: ContractFile
    contract: Contract | None

    @property
    def scope(self) -> str | None:
        return None if self.contract is None else self.contract.frontmatter.hz.scope


@dataclass
class NameCheck:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    overridden: dict[str, str] = field(default_factory=dict)  # replaced qualified name -> replacing one
    rejected: set[str] = field(default_factory=set)  # qualified names that must not compile


class UnknownContract(HzError):
    """A name on the command line that no layer defines."""


class AmbiguousContract(HzError):
    """A bare name that several modules define."""


def check_names(entries: Sequence[Entry]) -> NameCheck:
    """HZC302 for local team-scoped contracts, HZC301 for bad overrides and silent shadowing."""
    result = NameCheck()
    by_name = {entry.file.qualified_name: entry for entry in entries}
    for entry in entries:
        _check_scope(entry, result)
        _check_override(entry, by_name, result)
    groups: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        groups[entry.file.name].append(entry)
    for group in groups.values():
        _check_collisions(sorted(group, key=lambda e: e.file.layer.rank), result)
    return result


def may_override(replacing: Entry, replaced: Entry) -> bool:
    """The layer rules of `hz.overrides` (the replaced contract's scope matters for local layers)."""
    kind, target = replacing.file.layer.kind, replaced.file.layer.kind
    if target == "team" or replacing.file.qualified_name == replaced.file.qualified_name:
        return False
    if kind in ("team", "module"):
        return target == "module"
    return replaced.scope in ("personal", None)  # a broken target is disabled either way


def _check_scope(entry: Entry, result: NameCheck) -> None:
    if entry.contract is None or not entry.file.layer.local or entry.scope != "team":
        return
    layer = entry.file.layer.kind
    result.diagnostics.append(
        _diagnostic(
            entry,
            ("hz", "scope"),
            "HZC302",
            f"a {layer} contract declares scope: team; only the team repository's workflows/ holds team contracts",
            "set scope: personal, or move the contract into the team repository's workflows/",
        )
    )
    result.rejected.add(entry.file.qualified_name)


def _check_override(entry: Entry, by_name: Mapping[str, Entry], result: NameCheck) -> None:
    target = None if entry.contract is None else entry.contract.frontmatter.hz.overrides
    if target is None:
        return
    replaced = by_name.get(target)
    if replaced is None:
        message = f"overrides '{target}', which no layer defines"
        hint = "name an existing contract as <namespace>:<name>, or remove hz.overrides"
    elif may_override(entry, replaced):
        result.overridden[target] = entry.file.qualified_name
        return
    else:
        message = f"a {entry.file.layer.kind} contract may not override {_describe(replaced)}"
        hint = _override_rules()
    result.diagnostics.append(_diagnostic(entry, ("hz", "overrides"), "HZC301", message, hint))
    result.rejected.add(entry.file.qualified_name)


def _check_collisions(group: list[Entry], result: NameCheck) -> None:
    for i, first in enumerate(group):
        for second in group[i + 1 :]:
            if first.file.layer.kind == second.file.layer.kind == "module":
                continue  # namespaces of modules never collide; a bare name just becomes ambiguous
            if _overrides(first, second, result) or _overrides(second, first, result):
                continue
            culprit, other = _culprit(first, second)
            if culprit.file.qualified_name in result.rejected:
                continue
            hint = (
                f"add `overrides: {other.file.qualified_name}` under hz: to replace it, or rename this contract"
                if may_override(culprit, other)
                else f"rename this contract; {_override_rules()}"
            )
            message = (
                f"'{culprit.file.name}' is also defined as {_describe(other)};"
                " without hz.overrides one would silently shadow the other"
            )
            result.diagnostics.append(_diagnostic(culprit, ("name",), "HZC301", message, hint))
            result.rejected.add(culprit.file.qualified_name)


def _overrides(replacing: Entry, replaced: Entry, result: NameCheck) -> bool:
    return result.overridden.get(replaced.file.qualified_name) == replacing.file.qualified_name


def _culprit(higher: Entry, lower: Entry) -> tuple[Entry, Entry]:
    """The contract whose author can settle the collision: one that could override, else the local one."""
    if may_override(higher, lower):
        return higher, lower
    if may_override(lower, higher) or lower.file.layer.local or not higher.file.layer.local:
        return lower, higher
    return higher, lower


def _describe(entry: Entry) -> str:
    scope = f"{entry.scope} " if entry.scope else ""
    return f"the {scope}contract {entry.file.qualified_name} ({entry.file.display})"


def _override_rules() -> str:
    return "a team contract may override a module's; project and user contracts only personal ones; none a team one"


def _diagnostic(entry: Entry, loc: tuple[str, ...], code: str, message: str, hint: str) -> Diagnostic:
    line, column = entry.contract.locate(loc) if entry.contract is not None else (1, 1)
    return Diagnostic(entry.file.display, line, column, code, "error", ".".join(loc), message, hint)


def resolve_name(name: str, entries: Iterable[tuple[str, LayerKind]], overridden: Iterable[str] = ()) -> str:
    """The qualified name `name` stands for: itself when qualified, else the first layer that has it.

    A bare name skips contracts that another one overrides.
    """
    everything = list(entries)
    if ":" in name:
        if any(qualified == name for qualified, _ in everything):
            return name
        raise UnknownContract(f"no contract named {name}", hint="`hz workflow list` shows every contract")
    replaced = set(overridden)
    known = [(qualified, kind) for qualified, kind in everything if qualified not in replaced]
    for kind in RESOLUTION_ORDER:
        matches = sorted(q for q, k in known if k == kind and q.partition(":")[2] == name)
        if len(matches) > 1:
            raise AmbiguousContract(
                f"'{name}' names several module contracts: {', '.join(matches)}",
                hint="use the qualified name <namespace>:<name>",
            )
        if matches:
            return matches[0]
    raise UnknownContract(f"no contract named '{name}' in any layer", hint="`hz workflow list` shows every contract")
