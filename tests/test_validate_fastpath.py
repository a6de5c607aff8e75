"""`hz workflow validate` as a pre-commit hook runs it: a fresh process past click, with the same output.

The console entry point parses a plain `workflow validate [--json] [PATH…]` itself (hz.cli.fastpath), so
the hook's process never imports click, and it skips pydantic's search for plugins (importlib.metadata
and every distribution's entry points). Both paths must print the same and exit the same.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pydantic
from hypothesis import given
from hypothesis import strategies as st

from hz.cli.fastpath import validate_arguments
from hz.cli.workflow import validate
from hz.codes.contract_example import BASE, variant

SHORTCUT = [sys.executable, "-m", "hz"]
THROUGH_CLICK = [sys.executable, "-c", "import sys; from hz.cli import run; sys.exit(run(sys.argv[1:]))"]


def _hz(prefix: list[str], argv: list[str], cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run([*prefix, *argv], cwd=cwd, env=dict(os.environ), capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def _both(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    shortcut = _hz(SHORTCUT, argv, cwd)
    assert shortcut == _hz(THROUGH_CLICK, argv, cwd), argv
    return shortcut


def test_clean_broken_json_and_missing_files_match_click(repo: Path) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows/digest.prose.md").write_text(BASE, encoding="utf-8")
    (repo / "workflows/weekly.prose.md").write_text(variant(("name: digest", "name: weekly"), ("@alice", "alice")))
    assert _both(["workflow", "validate", "workflows/digest.prose.md"], repo) == (
        0,
        "1 contract checked: no problems\n",
        "",
    )
    code, out, err = _both(["workflow", "validate", "workflows/weekly.prose.md"], repo)
    assert (code, err) == (1, "")
    assert out.startswith("workflows/weekly.prose.md:8:10  HZC002  hz.owner\n")
    code, out, _ = _both(["workflow", "validate", "--json"], repo)
    assert code == 1
    assert [(d["path"], d["code"]) for d in json.loads(out)] == [("workflows/weekly.prose.md", "HZC002")]
    assert _both(["workflow", "validate", "nowhere.prose.md"], repo) == (
        1, "", "error: no such file or directory: nowhere.prose.md\n  hint: pass contract files or directories\n"
    )  # fmt: skip


def test_help_and_unknown_options_still_go_to_click(tmp_path: Path) -> None:
    code, out, err = _both(["workflow", "validate", "--help"], tmp_path)
    assert (code, err) == (0, "")
    assert out.startswith("Usage: hz workflow validate [OPTIONS] [PATHS]...")
    assert _both(["workflow", "validate", "--jsn"], tmp_path)[0] == 2


def test_only_plain_spellings_take_the_shortcut() -> None:
    assert validate_arguments(["workflow", "validate"]) == ([], False)
    assert validate_arguments(["workflow", "validate", "a.prose.md", "--json", "b"]) == (["a.prose.md", "b"], True)
    for argv in (
        ["workflow"],
        ["workflow", "list"],
        ["validate"],
        ["workflow", "validate", "--help"],
        ["workflow", "validate", "--json", "--json"],
        ["workflow", "validate", "--", "-odd.prose.md"],
        ["workflow", "validate", ""],
        ["tick"],
    ):
        assert validate_arguments(argv) is None, argv


WORDS = st.sampled_from(["--json", "--", "-x", "--jsonx", "a.prose.md", "workflows", "x y", ""])


@given(st.lists(WORDS, max_size=5))
def test_whatever_the_shortcut_accepts_click_parses_the_same(rest: list[str]) -> None:
    parsed = validate_arguments(["workflow", "validate", *rest])
    if parsed is None:
        return
    with validate.make_context("validate", list(rest)) as ctx:
        assert ([str(p) for p in ctx.params["paths"]], ctx.params["as_json"]) == parsed


PROBE = """
import sys
from hz.cli import main
try:
    main(["workflow", "validate", "workflows/digest.prose.md"])
except SystemExit as exit:
    print(sorted(m for m in ("click", "importlib.metadata", "pydantic.main") if m in sys.modules), exit.code)
"""


def test_the_shortcut_leaves_out_click_and_pydantics_plugin_search(repo: Path) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows/digest.prose.md").write_text(BASE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=repo, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["1 contract checked: no problems", "['pydantic.main'] 0"]


def test_pydantic_takes_only_get_plugins_from_the_loader_the_shortcut_replaces() -> None:
    """The shortcut puts a module with `get_plugins` alone in place of pydantic's plugin loader."""
    package = Path(pydantic.__file__).parent
    taken = {
        name.strip()
        for path in package.rglob("*.py")
        for names in re.findall(r"from (?:\.|pydantic\.plugin\.)_loader import ([\w, ]+)", path.read_text())
        for name in names.split(",")
    }
    assert taken == {"get_plugins"}


NO_FILE_PROBE = """
import platform, sys
calls = []
real = platform.architecture
platform.architecture = lambda *a, **k: calls.append(a) or real(*a, **k)
from hz.cli import main
try:
    main(["workflow", "validate", "workflows/digest.prose.md"])
except SystemExit as exit:
    wrapped = platform.architecture is not real  # still the probe's own wrapper: hz put back what it found
    print(len(calls), sys.modules["croniter.croniter"].OVERFLOW32B_MODE, wrapped, exit.code)
"""


def test_checking_a_schedule_starts_no_process_to_ask_the_word_size(repo: Path) -> None:
    """croniter's import runs `file` on the interpreter through platform.architecture; hz's does not."""
    (repo / "workflows").mkdir()
    (repo / "workflows/digest.prose.md").write_text(BASE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", NO_FILE_PROBE], cwd=repo, capture_output=True, text=True, check=True)
    # no call; croniter decided as its own probe would on this 64-bit Python; platform is restored after
    assert done.stdout.splitlines() == ["1 contract checked: no problems", "0 False True 0"]
