"""`contract:` references: the forms that name a contract, and the one function that resolves them.

Validation (`hz.contract.link`, HZC202) and the tick (`hz.sources.contract`) both call `resolve_reference`,
so a reference `hz workflow validate` accepts is one the tick can read, and one it refuses the tick
refuses too. Two forms are valid, each with an optional `#<facet>` (without one: every facet):

- `contract:<namespace>/<name>`: the contract of that file name in that layer's namespace;
- `contract:<name>`: resolved like a bare name on the command line, the first layer in
  `hz.contract.layers.RESOLUTION_ORDER` that has it (team first).

Either way a contract that another one replaces through `hz.overrides` reads its replacement. A
contract's `id:` is not a form: the id names a team contract's lease and receipts, and one way of
naming the upstream keeps a reference readable in review and the graph's edges by qualified name.
Names are slugs (`[a-z][a-z0-9-]*`), facets identifiers (`[a-z][a-z0-9_]*`), as the contract schema
requires them; anything else is no reference at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from hz.contract.layers import LayerKind
from hz.errors import HzError

if TYPE_CHECKING:
    from hz.contract.load import Contract

SCHEME = "contract:"
_REFERENCE = re.compile(
    r"contract:(?:(?P<ns>[a-z][a-z0-9-]*)/)?(?P<name>[a-z][a-z0-9-]*)(?:#(?P<facet>[a-z][a-z0-9_]*))?"
)
EXAMPLE = "contract:team/weekly-digest#summary"


@dataclass(frozen=True)
class Reference:
    namespace: str | None  # None: a bare name
    name: str
    facet: str  # "" for every facet

    @property
    def written(self) -> str:
        """The name as it was written, `team/weekly-digest` or `weekly-digest`."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


class BadReference(HzError):
    """A `contract:` reference that is malformed, names no contract, or a facet its contract lacks."""

    def __init__(self, kind: Literal["form", "contract", "facet"], message: str, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.kind = kind


def parse_reference(uri: str) -> Reference | None:
    match = _REFERENCE.fullmatch(uri)
    if match is None:
        return None
    return Reference(match["ns"], match["name"], match["facet"] or "")


def resolve_reference(
    uri: str, contracts: Iterable[tuple[str, LayerKind]], overridden: Mapping[str, str]
) -> tuple[Reference, str]:
    """(the parsed reference, the qualified name of the contract it reads); BadReference when none."""
    from hz.contract.names import resolve_name
    from hz.contract.resolve import did_you_mean

    reference = parse_reference(uri)
    if reference is None:
        hint = f"write contract:<namespace>/<name>#<facet>, such as {EXAMPLE}"
        raise BadReference("form", f"'{uri}' is not a contract reference", hint)
    names = list(contracts)
    wanted = f"{reference.namespace}:{reference.name}" if reference.namespace else reference.name
    try:
        qualified = resolve_name(wanted, names)
    except HzError:
        known = sorted(q.replace(":", "/") for q, _ in names)
        hint = did_you_mean(f"{reference.namespace or 'team'}/{reference.name}", known, "contracts")
        raise BadReference("contract", f"'{uri}' names a contract that no layer defines", hint) from None
    return reference, overridden.get(qualified, qualified)


def facets_of(contract: Contract) -> list[str]:
    """Every facet the contract's outputs maintain, sorted."""
    return sorted({facet for output in contract.frontmatter.hz.outputs.values() for facet in output.facets})


def check_facet(reference: Reference, qualified: str, contract: Contract) -> None:
    """BadReference when the reference names a facet the contract maintains in none of its outputs."""
    from hz.contract.resolve import did_you_mean

    facets = facets_of(contract)
    if reference.facet and reference.facet not in facets:
        hint = did_you_mean(reference.facet, facets, "facets")
        raise BadReference("facet", f"{qualified} maintains no facet '{reference.facet}'", hint)
