"""`hz workflow validate [PATH…]`: stages 1–3 for files, directories or the whole repository."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from hz.commands.workflow_common import compile_here, summary
from hz.diagnostic import Diagnostic, dumps_json, has_errors, render_all
from hz.errors import EXIT_ERROR, EXIT_OK, HzError, NotInRepository

SUFFIX = ".prose.md"


def run_validate(
    paths: Sequence[Path], *, as_json: bool, environ: Mapping[str, str] = os.environ, cwd: Path | None = None
) -> int:
    diagnostics, checked = contract_diagnostics(paths, environ, cwd)
    if not paths:
        diagnostics = sorted({*diagnostics, *_playbook(_root(cwd))})
    if as_json:
        print(dumps_json(diagnostics))
    else:
        if diagnostics:
            print(render_all(diagnostics))
        errors = sum(1 for d in diagnostics if d.is_error)
        print(summary(checked, errors, len(diagnostics) - errors))
    return EXIT_ERROR if has_errors(diagnostics) else EXIT_OK


def contract_diagnostics(
    paths: Sequence[Path], environ: Mapping[str, str], cwd: Path | None
) -> tuple[list[Diagnostic], int]:
    """Every stage's findings about the contracts at `paths` (default: the repository's), and how many."""
    if not paths:
        compiled = compile_here(environ, cwd)
        return sorted(compiled.diagnostics), len(compiled.contracts)
    files = expand(paths, cwd or Path.cwd())
    try:
        compiled = compile_here(environ, cwd)
    except NotInRepository:
        return _standalone(files), len(files)
    # A file is found by its real path, but a committed link to it is another contract file with its
    # own findings: links are keyed by where they stand, so each file is matched to itself.
    by_path = {_real(c.file.path): c for c in compiled.contracts if not c.file.path.is_symlink()}
    by_path |= {Path(os.path.abspath(c.file.path)): c for c in compiled.contracts if c.file.path.is_symlink()}
    matched = {f: by_path.get(f) or by_path.get(_real(f)) for f in files}
    inside = {entry.path for entry in matched.values() if entry is not None}
    found = [d for d in compiled.diagnostics if d.path in inside]
    return found + _standalone([f for f, entry in matched.items() if entry is None]), len(files)


def _root(cwd: Path | None) -> Path | None:
    from hz.repo import find_root

    try:
        return find_root(cwd)
    except NotInRepository:
        return None


def _playbook(root: Path | None) -> list[Diagnostic]:
    """The team's playbook of discovery hints is checked along with the repository's contracts."""
    if root is None:
        return []
    from hz.contract.playbook import load_playbook

    return load_playbook(root)[1]


def expand(paths: Sequence[Path], cwd: Path) -> list[Path]:
    """Files as given, directories as the `*.prose.md` files directly in them; all resolved."""
    out: list[Path] = []
    for given in paths:
        path = given if given.is_absolute() else cwd / given
        if path.is_dir():
            out += sorted(_absolute(p) for p in path.iterdir() if p.name.endswith(SUFFIX) and not p.is_dir())
        elif path.exists() or path.is_symlink():
            out.append(_absolute(path))
        else:
            raise HzError(f"no such file or directory: {given}", hint="pass contract files or directories")
    return out


def _absolute(path: Path) -> Path:
    """`path` made absolute and normalized, its links kept (a link is a file of its own)."""
    return Path(os.path.abspath(path))


def _real(path: Path) -> Path:
    """`path` with every link resolved; unlike `Path.resolve`, a link that loops is no exception."""
    return Path(os.path.realpath(path))


def _standalone(files: Sequence[Path]) -> list[Diagnostic]:
    """Files outside every layer: stages 1 and 2, and the registry checks of stage 3."""
    from hz.contract.load import load_contract
    from hz.contract.policy import Policies
    from hz.contract.resolve import check_registry

    found: list[Diagnostic] = []
    for path in files:
        label = _label(path)
        result = load_contract(Path(label))
        found += result.diagnostics
        checked = result.contract or result.draft  # a body error does not hide stage 3's findings
        if checked is not None:
            found += check_registry(checked, label, policies=Policies({}), now=datetime.now(UTC))
    return found


def _label(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
