"""The CLI boundary: exit codes, help for every command, and no traceback for foreseeable errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from hz.cli import COMMANDS, root, run


def test_version_and_help_exit_zero(hz: object) -> None:
    result = hz("--version")  # type: ignore[operator]
    assert result.exit_code == 0
    assert result.out.startswith("hz, version ")
    assert hz("--help").exit_code == 0  # type: ignore[operator]


def test_unknown_command_is_usage_error(hz: object) -> None:
    result = hz("no-such-command")  # type: ignore[operator]
    assert result.exit_code == 2
    assert "No such command 'no-such-command'" in result.err


def _walk(command: click.Command, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    found = [path]
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            found.extend(_walk(sub, (*path, name)))
    return found


def test_every_command_has_help(hz: object) -> None:
    for path in _walk(root, ()):
        result = hz(*path, "--help")  # type: ignore[operator]
        assert result.exit_code == 0, path
        assert "Usage: hz" in result.out


def test_registered_commands_point_at_real_modules() -> None:
    ctx = click.Context(root)
    for name in root.list_commands(ctx):
        assert name in COMMANDS
        assert root.get_command(ctx, name) is not None


def test_bug_exits_3_with_log_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    @root.command("boom-for-test")
    def boom() -> None:
        raise RuntimeError("kaboom")

    try:
        code = run(["boom-for-test"])
    finally:
        root.commands.pop("boom-for-test")
    assert code == 3
    logs = list((Path(__import__("os").environ["HZ_HOME"]) / "logs").glob("crash-*.log"))
    assert len(logs) == 1
    assert "RuntimeError: kaboom" in logs[0].read_text()
    assert logs[0].stat().st_mode & 0o777 == 0o600


def test_console_script_runs_as_a_process() -> None:
    proc = subprocess.run([sys.executable, "-m", "hz", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.startswith("hz, version")
