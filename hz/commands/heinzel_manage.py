"""`hz heinzel new|amend|lessons|dismiss|hide|retire|unretire|rename|pause|unpause`: the user's own actions
(new, lessons and dismiss print the results of `hz.ops`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TextIO

from hz.config import load_user_config
from hz.heinzel import lifecycle
from hz.session.store import Store


def _now(now: datetime | None) -> datetime:
    return now or datetime.now(UTC)


def _read(path: Path) -> str:
    from hz.textfile import read_text_file

    return read_text_file(path, hint="pass a UTF-8 .prose.md file")


def new_command(
    out: TextIO, name: str, source: Path, *, namespace: str, environ: Mapping[str, str], now: datetime | None = None
) -> int:
    from hz.ops import Context
    from hz.ops.models_actions import NewRequest
    from hz.ops.new import new_agent

    space: Literal["me", "project", "team"] = namespace  # type: ignore[assignment]  # click's Choice
    request = NewRequest(name=name, contract=_read(source), source=str(source), namespace=space)
    result = new_agent(Context(environ=environ, now=now), request)
    out.write("".join(line + "\n" for line in result["said"]))
    return 0


def amend_command(
    out: TextIO,
    name: str,
    source: Path,
    *,
    sentence: str | None,
    environ: Mapping[str, str],
    now: datetime | None = None,
) -> int:
    from hz.commands.tick import repo_root
    from hz.tick.team_amend import amend

    text = _read(source)
    with Store.from_environ(environ) as store:
        row = lifecycle.resolve(store, name)
        done = amend(store, row, text, root=repo_root(environ), environ=environ, now=_now(now), sentence=sentence)
    proposal = done.proposal
    widens = f" (widens {', '.join(proposal.widens)})" if proposal.widens else ""
    said = f"amendment {proposal.amendment_id} of {row['name']} proposed{widens}"
    if done.branch is None:
        out.write(f"{said}: `hz approve {proposal.amendment_id}`\n")
        return 0
    review = f"review its pull request {done.pull}" if done.pull else f"review the branch {done.branch}"
    out.write(f"{said} on {done.branch}: {review}; once merged on main, every member's tick adopts it\n")
    out.writelines(f"  note: {problem}\n" for problem in done.problems)
    return 0


def lessons_command(out: TextIO, name: str, *, json_output: bool, environ: Mapping[str, str]) -> int:
    from hz.ops import Context
    from hz.ops.lessons import list_lessons
    from hz.ops.models_agents import AgentRequest

    result = list_lessons(Context(environ=environ), AgentRequest(name=name))
    found = result["lessons"]
    if json_output:
        out.write(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
        return 0
    out.write(f"what {result['agent']} learned from you\n")
    for n, lesson in enumerate(found, start=1):
        mark = "  (dismissed: never shown to a model again)" if lesson["dismissed"] else ""
        out.write(f"{n}. {lesson['sentence']}{mark}\n   {lesson['lesson_id']} · {lesson['recorded_at']}\n")
        for hunk in lesson["hunks"]:
            shown = "(the diff expired with the turn's body)" if hunk is None else hunk.rstrip("\n")
            out.write("".join(f"   | {line}\n" for line in shown.split("\n")))
    if not found:
        out.write("nothing yet: lessons come from your edits of approved drafts\n")
    return 0


def dismiss_command(
    out: TextIO, name: str, lesson: str, *, environ: Mapping[str, str], now: datetime | None = None
) -> int:
    from hz.ops import Context
    from hz.ops.lessons import dismiss_lesson
    from hz.ops.models_actions import DismissRequest

    result = dismiss_lesson(Context(environ=environ, now=now), DismissRequest(name=name, lesson=lesson))
    out.write(result["said"] + "\n")
    return 0


def hide_command(
    out: TextIO,
    name: str,
    target: str,
    *,
    replacement: str | None,
    environ: Mapping[str, str],
    now: datetime | None = None,
) -> int:
    """`hz heinzel hide NAME TARGET`: the text of `hz.ops.lessons.hide_line`."""
    from hz.ops import Context
    from hz.ops.lessons import hide_line
    from hz.ops.models_actions import HideRequest

    request = HideRequest(name=name, target=target, replacement=replacement)
    out.write(hide_line(Context(environ=environ, now=now), request)["said"] + "\n")
    return 0


def state_command(
    out: TextIO, action: str, name: str, *, environ: Mapping[str, str], now: datetime | None = None
) -> int:
    """retire | unretire | pause | unpause."""
    tz = load_user_config(environ).timezone or "UTC"
    with Store.from_environ(environ) as store:
        row = lifecycle.resolve(store, name)
        moment = _now(now)
        if action == "retire":
            lifecycle.retire(store, row, now=moment)
        elif action == "pause":
            lifecycle.pause(store, row, now=moment)
        elif action == "unretire":
            lifecycle.unretire(store, row, now=moment, default_tz=tz)
        else:
            lifecycle.unpause(store, row, now=moment, default_tz=tz)
        state = store.index.agent(row["id"])["state"]  # type: ignore[index]
    out.write(f"{row['namespace']}:{row['name']} is {state}\n")
    return 0


def rename_command(
    out: TextIO, name: str, new_name: str, *, environ: Mapping[str, str], now: datetime | None = None
) -> int:
    with Store.from_environ(environ) as store:
        row = lifecycle.resolve(store, name)
        lifecycle.rename(store, row, new_name, now=_now(now))
    out.write(f"{row['namespace']}:{row['name']} is now {row['namespace']}:{new_name} ({row['id']})\n")
    return 0
