"""The packages import one way: the tick uses the turn and review, the turn uses review, and review uses
neither (it is bookkeeping and the forge, not the engine of a turn or the tick's orchestration).

Every import in the source is read with `ast`, those inside functions included (a late import is still a
dependency, only a deferred one); imports under `if TYPE_CHECKING:` are names for type hints only and
load nothing, so they cross no layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import hz

ROOT = Path(hz.__file__).parent
FORBIDDEN = {
    "review": ("hz.turn", "hz.tick"),
    "turn": ("hz.tick",),
    "ops": ("hz.cli", "hz.commands", "hz.web", "hz.mcp"),  # the heads call the operations, never the reverse
}
KNOWN = {
    # owned elsewhere, to be moved (reported): each entry here must still cross, so the list only shrinks
    "hz/review/decide.py imports hz.turn.journal",  # hz approve/reject build a Journal: belongs in hz/commands
    "hz/review/targets.py imports hz.turn.plan",  # only a type hint: under TYPE_CHECKING it would load nothing
}


def imports(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import statement of `source` (a module of `package`) that runs."""
    tree = ast.parse(source)
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            names = [f"{module}.{a.name}" for a in node.names] if node.module is None else [module]
            found += [(node.lineno, name) for name in names]
    return found


def crossings(package: str) -> set[str]:
    banned = FORBIDDEN[package]
    found: set[str] = set()
    for path in sorted((ROOT / package).rglob("*.py")):
        dotted = ".".join(("hz", *path.relative_to(ROOT).parent.parts))
        for _, module in imports(path.read_text(encoding="utf-8"), dotted):
            if any(module == b or module.startswith(b + ".") for b in banned):
                found.add(f"{path.relative_to(ROOT.parent)} imports {module}")
    return found


def test_review_imports_neither_the_turn_nor_the_tick() -> None:
    found = crossings("review")
    assert found - KNOWN == set()
    assert KNOWN - found == set(), "moved: take it off KNOWN"


def test_the_operations_import_no_head() -> None:
    # the lines a turn's report prints are the tick command's; they move when that module is split
    known = {"hz/ops/turns.py imports hz.commands.tick"}
    assert crossings("ops") == known


def test_the_turn_never_imports_the_tick() -> None:
    assert crossings("turn") == set()


def test_late_relative_and_typing_imports_are_read_as_they_load() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from hz.turn.plan import Plan\n"
        "def f():\n    from hz.tick import team\n    from ..turn import engine\n    from .. import tick\n"
    )
    modules = [m for _, m in imports(source, "hz.review")]
    assert modules == ["typing", "hz.tick", "hz.turn", "hz.tick"]
