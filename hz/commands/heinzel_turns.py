"""`hz heinzel wake|chat|retry|resume|stop`: run or steer one agent's turns from the command line."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TextIO

from hz.errors import EXIT_OK


def _request_id(now: datetime) -> str:
    from ulid import ULID

    return "rq-" + str(ULID.from_datetime(now)).lower()


def _report(out: TextIO, name: str, outcome: object, *, later: bool = False) -> int:
    from hz.commands.tick import render_report
    from hz.tick.direct import Outcome
    from hz.tick.report import TickReport

    assert isinstance(outcome, Outcome)
    if outcome.queued == "stop":
        out.write(f"{name} is awake in another process; asked its turn to stop at the next step\n")
    elif outcome.queued:
        where = "runs as its next turn" if later else "reaches the running turn"
        out.write(f"{name} is awake; your message ({outcome.queued}) {where}\n")
    else:
        report = TickReport(datetime.now(UTC), woken=outcome.ran)
        for line in render_report(report):
            out.write(("nothing to do" if line == "nothing due" else line) + "\n")
    return EXIT_OK


def wake_command(out: TextIO, name: str, *, after: bool, environ: Mapping[str, str]) -> int:
    """A wake has no words to steer with: while the agent is awake it always becomes the next turn."""
    return chat_command(out, name, "", after=True, environ=environ)


def chat_command(out: TextIO, name: str, message: str, *, after: bool, environ: Mapping[str, str]) -> int:
    from hz.commands.tick import repo_root
    from hz.tick.direct import ask

    now = datetime.now(UTC)
    outcome = ask(name, message, after=after, request_id=_request_id(now), root=repo_root(), environ=environ, now=now)
    return _report(out, name, outcome, later=after or not message)


def retry_command(out: TextIO, name: str, hint: str, *, environ: Mapping[str, str]) -> int:
    from hz.commands.tick import repo_root
    from hz.tick.direct import retry

    now = datetime.now(UTC)
    outcome = retry(name, hint, request_id=_request_id(now), root=repo_root(), environ=environ, now=now)
    return _report(out, name, outcome, later=True)


def resume_command(out: TextIO, name: str, *, environ: Mapping[str, str]) -> int:
    from hz.commands.tick import repo_root
    from hz.tick.direct import resume

    return _report(out, name, resume(name, root=repo_root(), environ=environ, now=datetime.now(UTC)))


def stop_command(out: TextIO, name: str, *, environ: Mapping[str, str]) -> int:
    from hz.commands.tick import repo_root
    from hz.tick.direct import stop

    return _report(out, name, stop(name, root=repo_root(), environ=environ, now=datetime.now(UTC)))
