"""Compiling a repository: every layer's contracts loaded, checked against each other and wired into a graph.

A contract that does not compile never stops the others: it is left out with its diagnostics, and only
the contracts that read it (directly or further down) are disabled. `hz workflow validate`, `hz graph`,
`hz codeowners`, the tick and `hz source list` all start here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hz.contract.layers import ContractFile, Layer, LayerKind, contract_files, discover_layers
from hz.contract.names import Entry, check_names, resolve_name
from hz.diagnostic import Diagnostic, has_errors
from hz.graph import Graph, build_graph

if TYPE_CHECKING:
    from hz.contract.load import Contract
    from hz.repo_paths import Refusal


@dataclass(frozen=True)
class CompiledContract:
    file: ContractFile
    contract: Contract | None  # None when it did not pass stages 1 and 2
    enabled: bool
    height: int
    disabled: str | None  # why it is off, in words; None when enabled

    @property
    def qualified_name(self) -> str:
        return self.file.qualified_name

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def namespace(self) -> str:
        return self.file.layer.namespace

    @property
    def layer(self) -> LayerKind:
        return self.file.layer.kind

    @property
    def path(self) -> str:
        return self.file.display


@dataclass(frozen=True)
class Compiled:
    root: Path | None
    layers: tuple[Layer, ...]
    contracts: tuple[CompiledContract, ...]  # wake order: height, then qualified name
    diagnostics: tuple[Diagnostic, ...]
    graph: Graph
    overridden: Mapping[str, str]  # replaced qualified name -> replacing one

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def get(self, name: str) -> CompiledContract:
        """A contract by qualified or bare name (team > project > me > module); HzError when unknown."""
        wanted = resolve_name(name, [(c.qualified_name, c.layer) for c in self.contracts], self.overridden)
        return next(c for c in self.contracts if c.qualified_name == wanted)

    def in_layer(self, kind: LayerKind) -> list[CompiledContract]:
        return [c for c in self.contracts if c.layer == kind]


def compile_repository(
    root: Path | None,
    environ: Mapping[str, str] = os.environ,
    *,
    now: datetime | None = None,
    cwd: Path | None = None,
    layers: list[Layer] | None = None,
) -> Compiled:
    """Discover every layer (or use `layers`), load each contract, apply stage 3 and build the graph."""
    from hz.contract.defaults import load_defaults
    from hz.contract.link import graph_diagnostics, link
    from hz.contract.pathcheck import path_diagnostics
    from hz.contract.policy import Policies, load_policies
    from hz.contract.resolve import check_registry
    from hz.contract.teamid import missing_ids

    layers = discover_layers(root, environ, cwd=cwd) if layers is None else layers
    diagnostics: list[Diagnostic] = []
    entries: list[Entry] = []
    drafts: dict[str, Contract] = {}  # contracts whose body failed: stage 3 still checks their frontmatter
    for layer in layers:
        defaults: Mapping[str, Any] | None = None
        if layer.kind == "team":
            defaults, found = load_defaults(layer)
            diagnostics += found
        for file in contract_files(layer):
            contract, found, draft = _load(file, defaults)
            diagnostics += found
            entries.append(Entry(file, contract))
            if contract is None and draft is not None:
                drafts[file.qualified_name] = draft
        diagnostics += _misnamed(layer)

    names = check_names(entries)
    diagnostics += names.diagnostics
    rejected = set(names.rejected)
    policies = load_policies(root) if root is not None else Policies({})
    moment = now or datetime.now(UTC)
    for entry in entries:
        checked = entry.contract or drafts.get(entry.file.qualified_name)
        if checked is not None and entry.file.qualified_name not in rejected:
            found = check_registry(checked, entry.file.display, policies=policies, now=moment)
            found += path_diagnostics(checked.frontmatter, path=entry.file.display, locate=checked.locate, root=root)
            diagnostics += found
            if has_errors(found):
                rejected.add(entry.file.qualified_name)

    compiled = {e.file.qualified_name for e in entries if e.contract is not None} - rejected
    links = link(entries, names.overridden, compiled)
    diagnostics += links.diagnostics
    rejected |= links.rejected
    in_graph = [e.file.qualified_name for e in entries if e.file.qualified_name not in names.overridden]
    broken = [name for name in in_graph if name not in compiled or name in rejected]
    graph = build_graph(in_graph, links.edges, broken=broken)
    diagnostics += graph_diagnostics(graph, links)
    diagnostics += missing_ids(entries, root)
    contracts = _assemble(entries, graph, names.overridden)
    return Compiled(root, tuple(layers), contracts, tuple(sorted(set(diagnostics))), graph, names.overridden)


def _misnamed(layer: Layer) -> list[Diagnostic]:
    from hz.contract.layers import misnamed_files

    folder = ContractFile(layer, layer.directory / "x").display.rpartition("/")[0]
    hint = "rename it: a contract's file is named <name>.prose.md, with the name in lowercase letters, digits and -"
    return [
        Diagnostic(f"{folder}/{name}" if folder else name, 1, 1, "HZC001", "error", "file",
                   "the file name is not UTF-8; hz leaves the file out", hint)
        for name in misnamed_files(layer)
    ]  # fmt: skip


def _load(
    file: ContractFile, defaults: Mapping[str, Any] | None
) -> tuple[Contract | None, list[Diagnostic], Contract | None]:
    """The compiled contract (None on errors), the findings, and the draft stage 3 may still check."""
    from hz.contract.load import load_contract

    text = read_contract(file)
    if isinstance(text, Diagnostic):
        return None, [text], None
    result = load_contract(Path(file.display), text=text, namespace=file.layer.namespace, defaults=defaults)
    return result.contract, list(result.diagnostics), result.draft


def read_contract(file: ContractFile) -> str | Diagnostic:
    """A contract file's text by the repository's path rule, or HZC001 saying why it is not read.

    Everything that reads a layer's contracts (compiling, adopting) reads them here, so a committed
    link out of the repository or into `.git` is never followed by one reader and refused by another.
    """
    from hz.contract.load import decode

    base = file.layer.base
    if base is not None and not Path(os.path.realpath(file.path)).is_relative_to(os.path.realpath(base)):
        message = "the file is a link that leads outside the repository; hz does not read it"
        return Diagnostic(file.display, 1, 1, "HZC001", "error", "file", message, "copy the contract in instead")
    data = _read(file)
    if not isinstance(data, bytes):
        message = f"the file {data.reason}; hz does not read it"
        return Diagnostic(file.display, 1, 1, "HZC001", "error", "file", message, data.hint)
    return decode(data, file.display)


def _read(file: ContractFile) -> bytes | Refusal:
    """A contract's bytes by the repository's path rule: a link into `.git`, a FIFO, a device or a huge
    file is refused (never read, never waited on); a file of the member's own layers is read bounded."""
    from hz.repo_paths import Refusal, read_file, read_regular

    base = file.layer.base
    if base is None:
        return read_regular(Path(os.path.realpath(file.path)))
    if file.path.is_relative_to(base):  # walked from the root as written, so a message names the link
        return read_file(base, file.path.relative_to(base).as_posix())
    folder, real_base = Path(os.path.realpath(file.path.parent)), Path(os.path.realpath(base))
    if not folder.is_relative_to(real_base):
        return Refusal("lies outside the repository", "copy the contract in instead")
    return read_file(real_base, (folder / file.path.name).relative_to(real_base).as_posix())


def _assemble(entries: list[Entry], graph: Graph, overridden: Mapping[str, str]) -> tuple[CompiledContract, ...]:
    from hz.graph import describe

    out: list[CompiledContract] = []
    for entry in entries:
        name = entry.file.qualified_name
        if name in overridden:
            out.append(CompiledContract(entry.file, entry.contract, False, 0, f"overridden by {overridden[name]}"))
            continue
        node = graph.nodes[name]
        reason = graph.disabled.get(name)
        why = describe(reason) if reason is not None else None
        out.append(CompiledContract(entry.file, entry.contract, node.enabled, node.height, why))
    return tuple(sorted(out, key=lambda c: (c.qualified_name in overridden, c.height, c.qualified_name)))
