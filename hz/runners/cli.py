"""Running a vendor CLI as a subprocess, and reading the outcome it printed.

The CLI runs in its own process group (a session of its own) with the prompt on stdin, in the turn's
directory or a fresh empty one, and dies with the turn:

- on timeout, and on any exception that ends the wait (the turn's stop check, a signal turned into an
  exception), the whole group gets SIGTERM, then SIGKILL after a grace period;
- when hz itself dies, even by SIGKILL, a watchdog ends the group. The watchdog is a small process in a
  session of its own that reads a pipe only hz holds open: the pipe's end-of-file is hz's death. It is
  chosen over `prctl(PR_SET_PDEATHSIG)`, which fires when the *thread* that started the child exits (a
  think run on a worker thread would kill its CLI at the thread's end), and reaches only the direct
  child, never the helpers a CLI spawns; the pipe sees the whole hz process end, and the watchdog kills
  the whole group.

Whatever the CLI prints is checked: a CLI that cannot be found, exits non-zero or prints something that
is not the expected JSON is a `RunnerError` with its words, never a traceback.

The CLI gets the environment without hz's secrets: no `GITHUB_TOKEN`, `JIRA_TOKEN` or any other
secret-named variable but the ones its own login reads (each runner names them), and no credentials in
URLs. What it prints is scrubbed of every secret before hz reads, records or quotes it.

A whole CLI run is one reservation (`CliRunner.reserve`): its worst case is reserved before it starts
and settled from what it reports after.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hz.runners.base import Grant, RunnerError, RunnerFailed, RunnerNotConfigured, RunnerTimeout, ThinkRequest, Usage
from hz.runners.outcome import Outcome, outcome_problems
from hz.runners.pricing import Price
from hz.runners.spend import MIN_ANSWER_TOKENS, Purse, input_bound, input_usd, output_usd
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

    def reserve(self, request: ThinkRequest, prompt: str, label: str) -> tuple[Purse, Grant]:
        """Reserve the whole run before it starts: at least its prompt and a short answer, at most the
        turn's cap or what its token ceiling can cost, whichever is less."""
        purse = Purse(request.max_usd, request.spend, label)
        least = self.prompt_usd(request, prompt) + output_usd(self.price, MIN_ANSWER_TOKENS)
        most = max(least, min(request.max_usd, self.worst_case_usd(request.max_tokens)))
        return purse, purse.reserve(least, most)

    def prompt_usd(self, request: ThinkRequest, prompt: str) -> float:
        """What the instructions and the prompt cost at most as input (one token per UTF-8 byte)."""
        return input_usd(self.price, input_bound(len(f"{request.instructions}{prompt}".encode()), 2))


def settle(purse: Purse, grant: Grant, usage: Usage, reported_usd: float | None) -> Usage:
    """Settle a run to the cost it reported: none is the whole grant (`no-usage`), more than the grant
    is recorded as reported and flagged `over-reported`. The usage returned carries both."""
    if reported_usd is None:
        purse.settle(grant, grant.usd, "no-usage")
    elif reported_usd > grant.usd + 1e-9:
        purse.settle(grant, reported_usd, "over-reported")
    else:
        purse.settle(grant, reported_usd)
    return Usage(
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_tokens,
        purse.settled_usd,
        usage.requests,
        tuple(purse.flags),
    )


def settle_failed(purse: Purse, grant: Grant, exc: BaseException) -> None:
    """A run that ended without a report: never started costs nothing, anything else its whole grant."""
    if isinstance(exc, RunnerNotConfigured):
        purse.settle(grant, 0.0)
    else:
        purse.settle(grant, grant.usd, "no-usage")
    if isinstance(exc, RunnerError):
        exc.usage = Usage(usd=purse.settled_usd, flags=tuple(purse.flags))


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
        finished = _run(argv, stdin, request.cwd, child, request, label)
    else:
        with tempfile.TemporaryDirectory(prefix="hz-think-") as scratch:
            finished = _run(argv, stdin, Path(scratch), child, request, label)
    # the CLI still holds its own key and may print it (an API error quoting it): it never gets further
    secrets = secrets_of(environ)
    return Finished(finished.returncode, secrets.scrub(finished.stdout), secrets.scrub(finished.stderr))


def _run(
    argv: Sequence[str], stdin: str, cwd: Path, environ: Mapping[str, str], request: ThinkRequest, label: str
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
            start_new_session=True,  # its own process group, so hz can end all of it
        )
    except FileNotFoundError as exc:
        raise RunnerNotConfigured(
            f"the {label} command {argv[0]!r} was not found",
            hint=f"install it and log in, or set command under [runners.{label}] in config.toml",
        ) from exc
    with process:
        try:
            with _Watchdog(process.pid):
                stdout, stderr = _wait(process, stdin, request)
        except subprocess.TimeoutExpired:
            _end_group(process)
            raise RunnerTimeout(f"{label} did not finish within {request.timeout_s:g} s and was stopped") from None
        except BaseException:  # the turn was stopped, or hz is going down: the CLI goes with it
            _end_group(process)
            raise
        _signal_group(process.pid, signal.SIGKILL)  # helpers the CLI left running end with it
    return Finished(process.returncode, stdout, stderr)


CANCEL_POLL_S = 0.25  # how often a running CLI's turn is asked whether it was stopped


def _wait(process: subprocess.Popen[str], stdin: str, request: ThinkRequest) -> tuple[str, str]:
    """Wait for the CLI to finish within the timeout, asking the turn's stop check now and then."""
    if request.check_cancel is None:
        return process.communicate(stdin, timeout=request.timeout_s)
    deadline = time.monotonic() + request.timeout_s
    pending: str | None = stdin  # communicate takes the input only once; a retry keeps what it read
    while True:
        left = deadline - time.monotonic()
        try:
            return process.communicate(pending, timeout=max(0.0, min(CANCEL_POLL_S, left)))
        except subprocess.TimeoutExpired:
            if left <= CANCEL_POLL_S:
                raise
        pending = None
        request.check_cancel()


class _Watchdog:
    """A process that ends the CLI's group when hz dies: it waits for end-of-file on a pipe only hz holds.

    On a normal end hz writes one byte before closing, and the watchdog leaves without a signal."""

    def __init__(self, pgid: int) -> None:
        self.pgid = pgid
        self.process: subprocess.Popen[bytes] | None = None
        self.pipe = -1

    def __enter__(self) -> _Watchdog:
        read, self.pipe = os.pipe()  # both ends close on exec: only the watchdog gets the read end, as stdin
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG, str(self.pgid), str(GRACE_S)],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a signal to hz's own group must not take the watchdog with it
                env={},
            )
        finally:
            os.close(read)
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            os.write(self.pipe, b"done")
        os.close(self.pipe)
        if self.process is not None:
            self.process.wait()


def _end_group(process: subprocess.Popen[str]) -> None:
    _signal_group(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.communicate(timeout=GRACE_S)
    _signal_group(process.pid, signal.SIGKILL)  # whatever is left: the leader, or helpers it spawned
    process.communicate()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group may be gone already
        os.killpg(pgid, sig)


# The watchdog's program: a byte before end-of-file means hz finished the run; none means hz is gone.
_WATCHDOG = """
import os, signal, sys, time
pgid, grace = int(sys.argv[1]), float(sys.argv[2])
if sys.stdin.buffer.read(1):
    sys.exit(0)
for sig in (signal.SIGTERM, signal.SIGKILL):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        break
    time.sleep(grace)
"""


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
