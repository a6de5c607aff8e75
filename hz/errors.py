"""The one exception root of hz and the exit codes it maps to.

Every foreseeable failure raises a subclass of `HzError`; the CLI boundary (`hz.cli.main`) is the only
place that turns exceptions into exit codes, so no command translates errors on its own.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1  # an error, or a check that found problems
EXIT_USAGE = 2  # click's own code for bad usage
EXIT_BUG = 3  # an unexpected exception; the traceback goes to a log file
EXIT_INTERRUPTED = 130


class HzError(Exception):
    """A foreseeable failure with a message for people and an optional hint."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def render(self) -> str:
        text = f"error: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class NotInRepository(HzError):
    """The command needs a git repository and the current directory is not inside one."""


class ConfigError(HzError):
    """A configuration file is malformed or holds a value of the wrong type."""


class LockTimeout(HzError):
    """Another process held a lock longer than we were willing to wait."""
