"""A committed `hz.toml` that hz cannot use is a clear error for every command that reads it.

A syntax error names the file, line and column; a `[state]` value of the wrong type or out of bounds
names the key; a file that is not a regular, bounded UTF-8 file is named as such. None of them may turn
team coordination off: `hz tick` reports the error and runs no team contract unleased.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.factory import git
from tests.turn.test_team import MONDAY, member

FIX = "fix hz.toml at the repository root (TOML, https://toml.io); team contracts wait until it parses"
SYNTAX = (
    "[state\nremote = 'origin'\n",
    "not valid TOML: Expected ']' at the end of a table declaration (at line 1, column 7)",
)
COMMANDS = [("state", "log"), ("state", "lint"), ("lease", "list")]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_syntax_error_names_the_file_line_and_column(command: tuple[str, ...], repo: Path, hz: Any) -> None:
    (repo / "hz.toml").write_text(SYNTAX[0])
    result = hz(*command)
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == f"error: {repo / 'hz.toml'}: {SYNTAX[1]}\n  hint: {FIX}\n"


def test_a_tick_with_a_syntax_error_is_an_error_and_runs_no_team_contract(
    tmp_path: Path, bare: Path, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a typo switched coordination off and the team contract ran on this machine alone."""
    clone, environ = member(tmp_path, "priya", bare)
    (clone / "hz.toml").write_text(SYNTAX[0])
    monkeypatch.chdir(clone)
    monkeypatch.setenv("HZ_HOME", environ["HZ_HOME"])
    monkeypatch.setenv("HZ_HANDLE", "@priya")
    result = hz("tick", "--now", MONDAY.isoformat())
    assert (result.exit_code, result.err) == (1, "")
    assert result.out == f"hz/state: error: {clone / 'hz.toml'}: {SYNTAX[1]}\n"
    assert git("branch", "--list", "hz/draft/*", cwd=clone) == ""
    # once fixed, the same tick runs the contract under its lease
    (clone / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    fixed = hz("tick", "--now", MONDAY.isoformat())
    assert fixed.exit_code == 0, fixed.out + fixed.err
    assert git("branch", "--list", "hz/draft/*", cwd=clone) != ""


def _number(key: str, shown: str, example: int) -> tuple[str, str]:
    return (
        f"state.{key} must be a whole number from 0 to {604800 if key.endswith('_s') else 1000}, got {shown}",
        f"for example {key} = {example}",
    )


BAD_VALUES = {
    "state = 3\n": (
        "state must be a table, got an integer 3",
        "write the settings under a [state] header, one key = value per line",
    ),
    "[[state]]\nremote = 'origin'\n": (
        "state must be a table, got an array [{'remote': 'origin'}]",
        "write the settings under a [state] header, one key = value per line",
    ),
    "[state]\nremote = 5\n": ("state.remote must be a string, got an integer 5", 'for example remote = "origin"'),
    "[state]\nremote = ['origin']\n": (
        "state.remote must be a string, got an array ['origin']",
        'for example remote = "origin"',
    ),
    "[state.remote]\nurl = 'x'\n": (
        "state.remote must be a string, got a table {'url': 'x'}",
        'for example remote = "origin"',
    ),
    "[state]\ntick_interval_s = '300'\n": _number("tick_interval_s", "a string '300'", 300),
    "[state]\npush_attempts = true\n": _number("push_attempts", "a boolean True", 5),
    "[state]\nlease_ttl_s = 900.0\n": _number("lease_ttl_s", "a float 900.0", 900),
    "[state]\nlease_ttl_s = 10000000000000\n": _number("lease_ttl_s", "an integer 10000000000000", 900),
    "[state]\ngrace_intervals = -1\n": _number("grace_intervals", "an integer -1", 2),
    "[state]\nclock_skew_s = 1979-05-27\n": _number("clock_skew_s", "a date or time datetime.date(1979, 5, 27)", 30),
    "[state]\nremote = 'https://example.com/" + "x" * 100 + "'\ntick_interval_s = '" + "y" * 100 + "'\n": _number(
        "tick_interval_s", "a string '" + "y" * 56 + "...", 300
    ),
}  # fmt: skip


@pytest.mark.parametrize("text", list(BAD_VALUES), ids=range(len(BAD_VALUES)))
def test_a_value_of_the_wrong_shape_is_named(text: str, repo: Path, hz: Any) -> None:
    (repo / "hz.toml").write_text(text)
    message, hint = BAD_VALUES[text]
    result = hz("lease", "list")
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == f"error: {repo / 'hz.toml'}: {message}\n  hint: {hint}\n"


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.mkdir()


def _latin1(path: Path) -> None:
    path.write_bytes("[state]\nremote = 'orígin'\n".encode("latin-1"))


def _huge(path: Path) -> None:
    path.write_text("# " + "x" * (1 << 20) + "\n")


def _dangling(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere.toml")


def _device(path: Path) -> None:
    path.symlink_to("/dev/zero")


OUT = "remove the link, or copy the file in"
BAD_FILES = {
    "fifo": (_fifo, "not a regular file", FIX),  # a plain read would wait for a writer forever
    "directory": (_directory, "not a regular file", FIX),
    "/dev/zero": (_device, "leads out of the repository through the link hz.toml", OUT),  # a read never ends
    "latin-1": (_latin1, "not UTF-8 text (byte 20)", FIX),
    "huge": (_huge, "larger than 1048576 bytes", FIX),
    "dangling symlink": (_dangling, "cannot be read: No such file or directory", FIX),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_file_hz_cannot_read_is_named_not_a_hang_or_a_crash(name: str, command: tuple[str, ...], repo: Path,
                                                               hz: Any) -> None:  # fmt: skip
    make, message, hint = BAD_FILES[name]
    make(repo / "hz.toml")
    result = hz(*command)
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == f"error: {repo / 'hz.toml'}: {message}\n  hint: {hint}\n"


def test_no_file_means_the_defaults(repo: Path, hz: Any) -> None:
    from hz.gitstate.settings import StateSettings, load_state_settings

    assert load_state_settings(repo) == StateSettings()
    (repo / "hz.toml").write_text("[other]\nx = 1\n")
    assert load_state_settings(repo) == StateSettings()
