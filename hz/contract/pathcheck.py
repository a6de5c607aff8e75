"""HZC021: the output targets and `file:` inputs of a contract against the repository's path rule.

The rule is `hz.repo_paths`, the same one the act step and the `file:` source apply. Stage 1 checks the
paths as written (no repository needed), so `hz heinzel new`, an amendment and `hz workflow validate`
all refuse a target into `.git` before any model is asked; with a repository at hand, compiling it also
checks what the disk holds (a committed link out of the repository or into `.git`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from hz.contract.validate import dotted
from hz.diagnostic import Diagnostic
from hz.repo_paths import Refusal, Role, target_problem, verdict

if TYPE_CHECKING:
    from hz.contract.model import ContractFrontmatter

CODE = "HZC021"
Loc = tuple[str | int, ...]


def path_diagnostics(
    frontmatter: ContractFrontmatter,
    *,
    path: str,
    locate: Callable[[Loc], tuple[int, int]],
    root: Path | None = None,
) -> list[Diagnostic]:
    """One HZC021 error per target or `file:` input the rule refuses, at its YAML node."""
    found: list[Diagnostic] = []
    for loc, what, uri, role in _paths(frontmatter):
        refusal = _refusal(uri, role, root)
        if refusal is not None:
            line, column = locate(loc)
            message = f"{what} {uri!r} {refusal.reason}"
            found.append(Diagnostic(path, line, column, CODE, "error", dotted(loc), message, refusal.hint))
    return found


def _refusal(uri: str, role: Role, root: Path | None) -> Refusal | None:
    return target_problem(uri, role, root) if role != "input" else verdict(uri.partition(":")[2], role, root)


def _paths(frontmatter: ContractFrontmatter) -> Iterator[tuple[Loc, str, str, Role]]:
    """(YAML location, what it is in words, URI, role) for every output target and `file:` source."""
    hz = frontmatter.hz
    role: Role = "team-target" if hz.scope == "team" else "target"
    for name, output in hz.outputs.items():
        yield ("hz", "outputs", name, "target"), "the target", output.target, role
    for name, spec in hz.inputs.items():
        for index, uri in enumerate(spec.source):
            if uri.startswith("file:"):
                loc: Loc = ("hz", "inputs", name, "source")
                yield (*loc, index) if len(spec.source) > 1 else loc, "the input", uri, "input"
