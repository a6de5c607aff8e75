"""Stage 3 of validation, per contract: what it names must exist in `hz.registry` and in the policies.

HZC012/013 check publish actions (known, and a write), HZC014 `hz:` tools (known, and read-only),
HZC015 source schemes, HZC022 source URIs their scheme cannot read (`feed://host`, `git:https://…`),
HZC017 personal sources in team contracts, HZC018 `auto_approve` requests.
The graph codes (HZC201-203) need every contract at once and live in `hz.contract.link`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from hz.contract.policy import Policies, warning
from hz.contract.sourceshape import CODE as SHAPE_CODE
from hz.contract.sourceshape import shape_problem
from hz.contract.validate import dotted
from hz.diagnostic import Diagnostic, Severity
from hz.registry import OPERATIONS, SOURCE_SCHEMES

if TYPE_CHECKING:
    from hz.contract.load import Contract

Loc = tuple[str | int, ...]


class Reporter:
    """Collects diagnostics for one contract, each placed at its YAML node."""

    def __init__(self, contract: Contract, path: str) -> None:
        self.contract, self.path = contract, path
        self.found: list[Diagnostic] = []

    def add(self, loc: Loc, code: str, message: str, hint: str = "", severity: Severity = "error") -> None:
        line, column = self.contract.locate(loc)
        self.found.append(Diagnostic(self.path, line, column, code, severity, dotted(loc), message, hint))


def check_registry(contract: Contract, path: str, *, policies: Policies, now: datetime) -> list[Diagnostic]:
    """Every stage-3 finding about `contract` that needs only the registry and the policies."""
    report = Reporter(contract, path)
    _check_publishes(report, policies, now)
    _check_tools(report)
    _check_sources(report)
    return report.found


def source_locs(contract: Contract) -> Iterator[tuple[str, str, Loc]]:
    """(input name, URI, YAML location) for every source of every input."""
    for name, spec in contract.frontmatter.hz.inputs.items():
        for index, uri in enumerate(spec.source):
            loc: Loc = ("hz", "inputs", name, "source")
            yield name, uri, (*loc, index) if len(spec.source) > 1 else loc


def _check_publishes(report: Reporter, policies: Policies, now: datetime) -> None:
    hz = report.contract.frontmatter.hz
    writes = sorted(name for name, op in OPERATIONS.items() if not op.read_only)
    for index, publish in enumerate(hz.publishes):
        loc: Loc = ("hz", "publishes", index, "action")
        operation = OPERATIONS.get(publish.action)
        if operation is None:
            report.add(
                loc,
                "HZC012",
                f"'{publish.action}' is not a write operation hz knows",
                did_you_mean(publish.action, writes, "write operations"),
            )
        elif operation.read_only:
            report.add(
                loc,
                "HZC013",
                f"'{publish.action}' only reads; a publish action must write",
                did_you_mean(publish.action, writes, "write operations"),
            )
        if publish.auto_approve is not None:
            refusal = policies.refusal(
                publish.auto_approve,
                contract=report.contract.qualified_name,
                owner=hz.owner,
                action=publish.action,
                scope=hz.scope,
                target=publish.target,
                now=now,
            )
            if refusal is not None:
                message, hint = warning(publish.auto_approve, refusal)
                report.add(("hz", "publishes", index, "auto_approve"), "HZC018", message, hint, "warning")


def _check_tools(report: Reporter) -> None:
    reads = sorted(name for name, op in OPERATIONS.items() if op.read_only)
    for index, tool in enumerate(report.contract.frontmatter.hz.tools):
        kind, _, name = tool.partition(":")
        if kind != "hz":
            continue  # mcp: and cli: tools are the runner's business
        operation = OPERATIONS.get(name)
        if operation is None:
            report.add(
                ("hz", "tools", index),
                "HZC014",
                f"'{name}' is not an operation hz knows",
                did_you_mean(name, reads, "read-only operations"),
            )
        elif not operation.read_only:
            report.add(
                ("hz", "tools", index),
                "HZC014",
                f"'{name}' writes; a tool may only read",
                "writes happen only through hz.publishes, after approval",
            )


def _check_sources(report: Reporter) -> None:
    team = report.contract.frontmatter.hz.scope == "team"
    for _, uri, loc in source_locs(report.contract):
        scheme = uri.partition(":")[0]
        provider = SOURCE_SCHEMES.get(scheme)
        if provider is None:
            known = sorted(SOURCE_SCHEMES)
            hint = did_you_mean(scheme, known, "source schemes", suffix=":")
            report.add(loc, "HZC015", f"no source provider for '{scheme}:'; install the module that reads it", hint)
        elif (shape := shape_problem(uri)) is not None:
            report.add(loc, SHAPE_CODE, f"'{uri}' {shape.message}", shape.hint)
        elif team and provider.personal:
            hint = "read the repository through git: (committed history every member shares), or set scope: personal"
            report.add(loc, "HZC017", f"a team contract reads '{scheme}:', which only the local machine can see", hint)


def did_you_mean(value: str, known: Iterable[str], what: str, suffix: str = "") -> str:
    choices = list(known)
    close = difflib.get_close_matches(value, choices, n=1, cutoff=0.5)
    if close:
        return f"did you mean '{close[0]}{suffix}'?"
    return f"known {what}: {', '.join(c + suffix for c in choices)}"
