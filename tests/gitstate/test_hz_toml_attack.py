"""A committed `hz.toml` that is a link: hz reads it only where the repository's path rule allows.

A link into `.git` would make hz parse the member's `.git/config` (which parses as TOML when it has
only a `[core]` table) and go on with defaults read from it; a link out of the repository would make a
file elsewhere on the machine the team's settings. Both are named errors; a link to another file of
the repository is read as that file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.factory import git

COMMANDS = [("state", "log"), ("lease", "list")]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_hz_toml_linked_into_git_is_refused(command: tuple[str, ...], repo: Path, hz: Any) -> None:
    assert "[core]" in (repo / ".git" / "config").read_text()
    os.symlink(".git/config", repo / "hz.toml")
    result = hz(*command)
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == (
        f"error: {repo / 'hz.toml'}: leads into .git through the link hz.toml\n"
        "  hint: remove the link; hz never reads .git\n"
    )


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_hz_toml_linked_out_of_the_repository_is_refused(command: tuple[str, ...], repo: Path, hz: Any) -> None:
    outside = repo.parent / "elsewhere.toml"
    outside.write_text("[state]\nlease_ttl_s = 60\n")
    os.symlink(outside, repo / "hz.toml")
    result = hz(*command)
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == (
        f"error: {repo / 'hz.toml'}: leads out of the repository through the link hz.toml\n"
        "  hint: remove the link, or copy the file in\n"
    )


def test_hz_toml_linked_to_a_file_of_the_repository_is_that_file(repo: Path, bare: Path, hz: Any) -> None:
    (repo / "config").mkdir()
    (repo / "config" / "hz.toml").write_text(f"[state]\nremote = {str(bare)!r}\n")
    os.symlink("config/hz.toml", repo / "hz.toml")
    git("-C", str(repo), "remote")  # no remote configured: the only way to reach `bare` is the file
    result = hz("lease", "list")
    assert (result.exit_code, result.out, result.err) == (0, f"no leases on {bare}\n", "")


@pytest.mark.parametrize("header", ["[State]", "[STATE]", '["state "]', '[" state"]'])
def test_a_state_table_spelt_another_way_is_an_error_not_coordination_off(header: str, repo: Path, hz: Any) -> None:
    """TOML takes `[State]` for another table: the team's `[state]` would be missing, and a tick would run
    every team contract unleased on every member's machine."""
    (repo / "hz.toml").write_text(f'{header}\nremote = "origin"\n')
    key = header.strip("[]").strip('"')
    result = hz("lease", "list")
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == (
        f"error: {repo / 'hz.toml'}: the table {key!r} is not [state] (TOML keys are exact)\n"
        "  hint: fix hz.toml at the repository root (TOML, https://toml.io); team contracts wait until it parses\n"
    )
    from hz.tick.team import configured

    assert configured(repo) is True  # an unreadable file counts as configured: team slots wait


@pytest.mark.parametrize("value", ["[" * 1000 + "]" * 1000, "{x = " * 1000 + "1" + "}" * 1000])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_deep_nesting_is_an_error_not_a_crash(value: str, command: tuple[str, ...], repo: Path, hz: Any) -> None:
    """2 KB of brackets made tomllib recurse past Python's limit: every command exited 3."""
    (repo / "hz.toml").write_text(f"deep = {value}\n")
    result = hz(*command)
    assert (result.exit_code, result.out) == (1, "")
    assert result.err == (
        f"error: {repo / 'hz.toml'}: arrays or tables nest too deeply to read\n"
        "  hint: fix hz.toml at the repository root (TOML, https://toml.io); team contracts wait until it parses\n"
    )
