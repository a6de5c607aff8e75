"""The console entry point's shortcut for `hz tick` behaves exactly like the click command it bypasses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from hz.cli.fastpath import tick_arguments
from hz.cli.tick import tick
from tests.turn.agents import adopt, contract_text

# The same argv through the console entry point (shortcut) and through click (`hz.cli.run`).
SHORTCUT = [sys.executable, "-m", "hz"]
THROUGH_CLICK = [sys.executable, "-c", "import sys; from hz.cli import run; sys.exit(run(sys.argv[1:]))"]
BAD_NOW = "error: --now 'yesterday' is not an ISO 8601 time\n  hint: e.g. --now 2026-10-30T15:00Z\n"


def _hz(prefix: list[str], argv: list[str], *, cwd: Path, home: Path | None = None) -> tuple[int, str, str]:
    environ = dict(os.environ)
    if home is not None:
        environ["HZ_HOME"] = str(home)
    done = subprocess.run([*prefix, *argv], cwd=cwd, env=environ, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def _both(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    shortcut = _hz(SHORTCUT, argv, cwd=cwd)
    assert shortcut == _hz(THROUGH_CLICK, argv, cwd=cwd), argv
    return shortcut


def test_plain_json_now_and_a_bad_now_match_click(tmp_path: Path) -> None:
    assert _both(["tick"], tmp_path) == (0, "nothing due\n", "")
    assert _both(["tick", "--now", "2026-11-02T09:00Z"], tmp_path) == (0, "nothing due\n", "")
    assert _both(["tick", "--now=2026-11-02T09:00", "--json"], tmp_path) == (0, json.dumps({
        "busy": [], "deferred": [], "now": "2026-11-02T09:00:00Z", "pushed": False, "team": [], "woken": []
    }, indent=2) + "\n", "")  # fmt: skip
    assert _both(["tick", "--json", "--now", "yesterday"], tmp_path) == (1, "", BAD_NOW)
    assert _both(["tick", "--now=yesterday"], tmp_path) == (1, "", BAD_NOW)


def test_help_and_usage_errors_still_go_to_click(tmp_path: Path) -> None:
    code, out, err = _both(["tick", "--help"], tmp_path)
    assert (code, err) == (0, "")
    assert out.startswith("Usage: hz tick [OPTIONS]\n\n  Run one tick: wake the Heinzelmännchen that are due")
    assert _both(["tick", "--now"], tmp_path) == (2, "", "Error: Option '--now' requires an argument.\n")
    assert _both(["tick", "--json=yes"], tmp_path) == (2, "", "Error: Option '--json' does not take a value.\n")
    code, out, err = _both(["tick", "extra"], tmp_path)
    assert (code, out) == (2, "")
    assert err.endswith("Error: Got unexpected extra argument (extra)\n")


def test_a_tick_with_work_reports_the_same_on_both_paths(repo: Path, tmp_path: Path) -> None:
    adopt(contract_text(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    # two identical machines: the repository and the home copied before either tick runs
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin / "repo")
    shutil.copytree(os.environ["HZ_HOME"], twin / "home")
    argv = ["tick", "--now", "2026-10-26T09:00Z"]
    shortcut = _hz(SHORTCUT, argv, cwd=repo)
    assert shortcut == (0, "weekly-note: started -> drafted\n", "")
    assert _hz(THROUGH_CLICK, argv, cwd=twin / "repo", home=twin / "home") == shortcut


def test_the_console_script_is_the_entry_point_with_the_shortcut(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "hz"
    assert _hz([str(script)], ["tick", "--now", "nope"], cwd=tmp_path) == (
        1, "", "error: --now 'nope' is not an ISO 8601 time\n  hint: e.g. --now 2026-10-30T15:00Z\n"
    )  # fmt: skip


def test_only_plain_spellings_take_the_shortcut() -> None:
    assert tick_arguments(["tick"]) == (None, False)
    assert tick_arguments(["tick", "--json", "--now", "2026-11-02"]) == ("2026-11-02", True)
    assert tick_arguments(["tick", "--now=", "--json"]) == ("", True)
    for argv in (
        [],
        ["daemon"],
        ["--version"],
        ["tick", "--help"],
        ["tick", "-h"],
        ["tick", "--json", "--json"],
        ["tick", "--now", "a", "--now", "b"],
        ["tick", "--now", "--json"],
        ["tick", "--now"],
        ["tick", "--"],
        ["tick", "--js"],
        ["tick", "x"],
    ):
        assert tick_arguments(argv) is None, argv


WORDS = st.sampled_from(["--json", "--now", "--now=", "--now=2026-11-02T09:00Z", "2026-11-02", "-x", "--", "x", ""])


@given(st.lists(WORDS, max_size=5))
def test_whatever_the_shortcut_accepts_click_parses_the_same(rest: list[str]) -> None:
    parsed = tick_arguments(["tick", *rest])
    if parsed is None:
        return
    with tick.make_context("tick", list(rest)) as ctx:
        assert (ctx.params["now"], ctx.params["as_json"]) == parsed


def test_shell_completion_still_reaches_click(tmp_path: Path) -> None:
    environ = {**os.environ, "_HZ_COMPLETE": "bash_complete", "COMP_WORDS": "hz tick --", "COMP_CWORD": "2"}
    done = subprocess.run([*SHORTCUT, "tick"], cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == ["plain,--now", "plain,--json", "plain,--help"]
