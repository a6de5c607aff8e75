"""Every git process hz starts runs with `hz.gitenv.git_env`, so `GIT_ALLOW_PROTOCOL` always applies.

Read from the source: a `subprocess` call whose command starts with "git" must pass `env=git_env(...)`
(or the Git class's `self.env`, which is built by it). A new call without it fails here, not in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

import hz
from hz.gitstate.transport import Git

PACKAGE = Path(hz.__file__).parent
CALLS = {"run", "Popen", "check_output", "check_call", "call"}


def _git_list(node: ast.AST) -> bool:
    first = node.elts[0] if isinstance(node, ast.List) and node.elts else None
    return isinstance(first, ast.Constant) and first.value == "git"


def _git_names(tree: ast.AST) -> set[str]:
    """Names a git command line is built in first (`command = ["git", ...]`), anywhere in the module."""
    return {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and _git_list(n.value)
            for t in n.targets if isinstance(t, ast.Name)}  # fmt: skip


def _runs_git(call: ast.Call, names: set[str]) -> bool:
    func = call.func
    named = isinstance(func, ast.Attribute) and func.attr in CALLS and getattr(func.value, "id", "") == "subprocess"
    if not named or not call.args:
        return False
    command = call.args[0]
    return _git_list(command) or (isinstance(command, ast.Name) and command.id in names)


def _git_env(call: ast.Call) -> bool:
    env = next((k.value for k in call.keywords if k.arg == "env"), None)
    by_helper = isinstance(env, ast.Call) and getattr(env.func, "id", "") == "git_env"
    by_git_class = isinstance(env, ast.Attribute) and env.attr == "env" and getattr(env.value, "id", "") == "self"
    return by_helper or by_git_class


def test_every_git_subprocess_gets_the_git_environment() -> None:
    missing, seen = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _git_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _runs_git(node, names):
                seen += 1
                if not _git_env(node):
                    missing.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert missing == []
    assert seen >= 9  # the scan finds the calls it is meant to check


def test_the_git_class_environment_limits_the_transports(tmp_path: Path) -> None:
    env = Git(tmp_path, {"PATH": "/usr/bin"}).env
    assert (env["GIT_ALLOW_PROTOCOL"], env["GIT_TERMINAL_PROMPT"], env["LC_ALL"]) == (
        "file:git:http:https:ssh",
        "0",
        "C",
    )
