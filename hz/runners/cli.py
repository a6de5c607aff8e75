"""Running a vendor CLI as a subprocess, and reading the outcome it printed.

The CLI runs in its own process group with the prompt on stdin, in the turn's directory or a fresh
empty one. On timeout the whole group gets SIGTERM, then SIGKILL after a grace period, so a CLI that
spawned helpers leaves nothing behind. Whatever it prints is checked: a CLI that cannot be found,
exits non-zero or prints something that is not the expected JSON is a `RunnerError` with its words,
never a traceback.

The CLI gets the environment without hz's secrets: no `GITHUB_TOKEN`, `JIRA_TOKEN` or any other
secret-named variable but the ones its own login reads (each runner names them), and no credentials in
URLs. What it prints is scrubbed of every secret before hz reads, records or quotes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hz.runners.base import RunnerFailed, RunnerNotConfigured, RunnerTimeout, ThinkRequest, Usage
from hz.runners.outcome import Outcome, outcome_problems
from hz.runners.pricing import Price
from hz.runners.wire import WireOutcome
from hz.secrets import secrets_of, without_secrets


class CliRunner:
    """What the vendor CLI runners share: the command to run, the model, its price, the environment."""

    def __init__(self, command: str, model: str | None, price: Price, environ: Mapping[str, str]) -> None:
        self.command = command
        self.model = model
        self.price = price
        self.environ = dict(environ)

    def worst_case_usd(self, max_tokens: int) -> float:
        return self.price.worst_case(max_tokens)


GRACE_S = 1.0  # between SIGTERM and SIGKILL of a CLI that overran its timeout
STDERR_TAIL = 400  # characters of stderr quoted in an error


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str

    def stderr_tail(self) -> str:
        text = self.stderr.strip()
        return text[-STDERR_TAIL:] if text else "(nothing on stderr)"


def run_cli(
    argv: Sequence[str],
    *,
    stdin: str,
    request: ThinkRequest,
    environ: Mapping[str, str],
    label: str,
    login: Iterable[str] = (),
) -> Finished:
    """Run `argv` to completion within the request's timeout, with `environ` less every secret but `login`."""
    child = without_secrets(environ, login)
    if request.cwd is not None:
        finished = _run(argv, stdin, request.cwd, child, request.timeout_s, label)
    else:
        with tempfile.TemporaryDirectory(prefix="hz-think-") as scratch:
            finished = _run(argv, stdin, Path(scratch), child, request.timeout_s, label)
    # the CLI still holds its own key and may print it (an API error quoting it): it never gets further
    secrets = secrets_of(environ)
    return Finished(finished.returncode, secrets.scrub(finished.stdout), secrets.scrub(finished.stderr))


def _run(
    argv: Sequence[str], stdin: str, cwd: Path, environ: Mapping[str, str], timeout_s: float, label: str
) -> Finished:
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(environ),
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,  # its own process group, so a timeout can end all of it
        )
    except FileNotFoundError as exc:
        raise RunnerNotConfigured(
            f"the {label} command {argv[0]!r} was not found",
            hint=f"install it and log in, or set command under [runners.{label}] in config.toml",
        ) from exc
    with process:
        try:
            stdout, stderr = process.communicate(stdin, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _end_group(process)
            raise RunnerTimeout(f"{label} did not finish within {timeout_s:g} s and was stopped") from None
    return Finished(process.returncode, stdout, stderr)


def _end_group(process: subprocess.Popen[str]) -> None:
    _signal_group(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.communicate(timeout=GRACE_S)
    _signal_group(process.pid, signal.SIGKILL)  # whatever is left: the leader, or helpers it spawned
    process.communicate()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # the group may be gone already
        os.killpg(pgid, sig)


def parse_json_object(text: str, label: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        raise RunnerFailed(f"{label} printed something that is not JSON: {_snippet(text)}") from None
    if not isinstance(value, dict):
        raise RunnerFailed(f"{label} printed JSON that is not an object: {_snippet(text)}")
    return value


def outcome_from(value: Any, request: ThinkRequest, label: str, usage: Usage) -> Outcome:
    """The outcome in what the CLI answered: a wire outcome, or text holding one (maybe fenced)."""
    if isinstance(value, str):
        try:
            value = json.loads(_unfence(value))
        except ValueError:
            raise RunnerFailed(f"{label} answered with text that is not JSON: {_snippet(value)}", usage=usage) from None
    try:
        outcome = WireOutcome.model_validate(value).to_outcome()
    except ValueError as exc:
        first = str(exc).splitlines()[:3]
        raise RunnerFailed(f"{label} answered with an outcome hz cannot read: {' '.join(first)}", usage=usage) from None
    problems = outcome_problems(outcome, request.want, request.outputs)
    if problems:
        raise RunnerFailed(f"{label} answered with an unusable outcome: {'; '.join(problems)}", usage=usage)
    return outcome


def _unfence(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped.strip()


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat[:120] + ("…" if len(flat) > 120 else "")) if flat else "(nothing)"
