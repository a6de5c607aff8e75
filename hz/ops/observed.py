"""What `hz graph --observed` and `--html` read: the receipts on `hz/state` and what each contract declares.

No fetch: the graph reads `hz/state` as the last tick's one fetch left it in hz's own namespace
(`refs/hz/sync/<remote>/heads/hz/state`), else the local `hz/state` branch (a server or a mirror). A tick
runs every few minutes, so the picture is as fresh as the team's last look; `hz state log --fetch`
exists for the newest. Who ran a turn is read from the lease chains this clone has (hz.gitstate.lint_fence).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from hz.errors import HzError
from hz.graph_observed import Declared, Observed, Receipt, observe

if TYPE_CHECKING:
    import pygit2

    from hz.contract.project import Compiled
    from hz.gitstate.lint_fence import LeaseBook
    from hz.graph import Graph


def read_observed(root: Path, compiled: Compiled, graph: Graph, environ: Mapping[str, str] = os.environ) -> Observed:
    """The receipts folded against what `compiled` declares, compared with `graph` (the edges shown)."""
    from hz.gitstate.lint_fence import LeaseBook

    repo, ref, tip = _state_tip(root, environ)
    if tip is None:
        return observe((), declared_by_agent(compiled), graph, lambda lease, token: None, None)
    book = LeaseBook.local(repo)

    def holder(lease: str, token: int) -> tuple[str, str] | None:
        grants = book.grants(lease)
        return grants.holder(token) if grants is not None else None

    receipts = list(_receipts(repo, tip, book))
    return observe(receipts, declared_by_agent(compiled), graph, holder, ref)


def _state_tip(root: Path, environ: Mapping[str, str]) -> tuple[pygit2.Repository, str | None, str | None]:
    """The repository, the name of the hz/state ref read and its tip (None, None: there is none here)."""
    import pygit2

    from hz.gitstate.layout import STATE_REF
    from hz.gitstate.objects import resolve
    from hz.review.sync import team_remote

    team = team_remote(root, environ)
    repo = team.repo if team is not None else pygit2.Repository(str(root))
    for ref in ([team.tracking(STATE_REF)] if team is not None else []) + [STATE_REF]:
        if (tip := resolve(repo, ref)) is not None:
            return repo, ref, tip
    return repo, None, None


def _receipts(repo: pygit2.Repository, tip: str, book: LeaseBook) -> Iterator[Receipt]:
    import pydantic

    from hz.gitstate.reader import history

    try:
        for landed in history(repo, tip, book):
            e = landed.event
            yield Receipt(e.kind, e.id, e.key, e.ts, e.lease, e.token, e.data, landed.void)
    except (pydantic.ValidationError, ValueError) as exc:
        raise HzError(
            f"hz/state holds an event hz cannot read: {str(exc).splitlines()[0]}",
            hint="`hz state lint` names it; the hook refuses such events on a protected remote",
        ) from None


def declared_by_agent(compiled: Compiled) -> dict[str, Declared]:
    """Each contract with an `id:`, by the agent id its receipts carry, with what each input names."""
    from hz.contract.refs import BadReference, resolve_reference
    from hz.contract.resolve import source_locs

    names = [(c.qualified_name, c.layer) for c in compiled.contracts]
    found: dict[str, Declared] = {}
    for c in compiled.contracts:
        if c.contract is None or c.contract.frontmatter.id is None:
            continue
        inputs: dict[str, tuple[str, ...]] = {}
        for input_name, uri, _ in source_locs(c.contract):
            source = uri
            if uri.startswith("contract:"):
                try:
                    source = resolve_reference(uri, names, compiled.overridden)[1]
                except BadReference:  # `hz workflow validate` explains it; the read stays unresolved
                    continue
            inputs[input_name] = (*inputs.get(input_name, ()), source)
        outputs = {name: spec.target for name, spec in c.contract.frontmatter.hz.outputs.items()}
        found[f"hz-{c.contract.frontmatter.id}"] = Declared(c.qualified_name, inputs, outputs)
    return found
