"""`hz heinzel …`: the Heinzelmännchen themselves (click wiring only).

The group is lazy: each sub-command names the module that holds it. `wake`, `chat`, `retry`, `resume`
and `stop` run turns and live in `hz.cli.heinzel_turns` (the turn engine's module).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from hz.cli import params
from hz.cli.group import LazyGroup

SUBCOMMANDS: dict[str, str] = {
    "new": "hz.cli.heinzel:new",
    "list": "hz.cli.heinzel:list_",
    "show": "hz.cli.heinzel:show",
    "amend": "hz.cli.heinzel:amend",
    "lessons": "hz.cli.heinzel:lessons",
    "dismiss": "hz.cli.heinzel:dismiss",
    "hide": "hz.cli.heinzel:hide",
    "retire": "hz.cli.heinzel:retire",
    "unretire": "hz.cli.heinzel:unretire",
    "pause": "hz.cli.heinzel:pause",
    "unpause": "hz.cli.heinzel:unpause",
    "rename": "hz.cli.heinzel:rename",
    "prune": "hz.cli.heinzel:prune",
    "reindex": "hz.cli.heinzel:reindex",
    "repair": "hz.cli.heinzel:repair",
    "wake": "hz.cli.heinzel_turns:wake",
    "chat": "hz.cli.heinzel_turns:chat",
    "retry": "hz.cli.heinzel_turns:retry",
    "resume": "hz.cli.heinzel_turns:resume",
    "stop": "hz.cli.heinzel_turns:stop",
}

STATES = ("proposed", "asleep", "awake", "waiting", "paused", "retired", "frozen")
_JSON = click.option("--json", "json_output", is_flag=True, help="Print JSON.")


@click.group(cls=LazyGroup, lazy=SUBCOMMANDS)
def heinzel() -> None:
    """Your Heinzelmännchen: durable agents, one per contract, with their sessions."""


@click.command("new")
@click.argument("name")
@click.option("--from", "source", type=click.Path(dir_okay=False, path_type=Path),
              help="A .prose.md contract to compile as version 1.")  # fmt: skip
@click.option("--say", "sentence", metavar="SENTENCE",
              help="What the agent should do, in plain words; the model runner writes version 1.")  # fmt: skip
@click.option("--namespace", type=click.Choice(["me", "project", "team"]), default="me", show_default=True)
def new(name: str, source: Path | None, sentence: str | None, namespace: str) -> int:
    """Propose a new Heinzelmännchen NAME from a contract file or a sentence; `hz approve NAME` lets it wake.

    \b
    hz heinzel new weekly --from weekly.prose.md
    hz heinzel new weekly --say "every Friday at 15:00 draft the week's merged work into reports/weekly.md"
    """
    if (source is None) == (sentence is None):
        raise click.UsageError("give exactly one of --from PATH or --say SENTENCE")
    if sentence is not None:
        from hz.commands.heinzel_new_sentence import new_from_sentence_command

        return new_from_sentence_command(sys.stdout, name, sentence, namespace=namespace, environ=os.environ)
    from hz.commands.heinzel_manage import new_command

    assert source is not None
    return new_command(sys.stdout, name, source, namespace=namespace, environ=os.environ)


@click.command("list")
@click.option("--state", type=click.Choice(STATES), help="Only agents in this state.")
@click.option("--artifact", metavar="ASSET", help="Only agents that keep this asset (an output target).")
@click.option("--contract", metavar="NAME[@VERSION]", help="Only agents of this contract (at this version).")
@click.option("--all", "everywhere", is_flag=True, help="Every repository's agents, each with its repository.")
@_JSON
def list_(state: str | None, artifact: str | None, contract: str | None, everywhere: bool, json_output: bool) -> int:
    """List this repository's Heinzelmännchen and those of no repository, from the index (no spine is opened)."""
    from hz.commands.heinzel_list import list_command
    from hz.commands.tick import repo_root

    return list_command(
        sys.stdout, state=state, artifact=artifact, contract=contract, json_output=json_output, environ=os.environ,
        root=repo_root(os.environ), everywhere=everywhere,
    )  # fmt: skip


@click.command("show")
@click.argument("name")
@click.option("--verify", is_flag=True, help="Read the whole spine again and check its chain first.")
@_JSON
def show(name: str, verify: bool, json_output: bool) -> int:
    """Contract versions, timeline, lessons, pending items and cost of one Heinzelmännchen."""
    from hz.commands.heinzel_show import show_command

    return show_command(sys.stdout, name, json_output=json_output, environ=os.environ, verify=verify)


@click.command("amend")
@click.argument("name")
@click.option("--from", "source", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The full new text of the contract.")  # fmt: skip
@click.option("--why", "sentence", callback=params.sentence,
              help="One sentence on what changes, shown with the amendment.")  # fmt: skip
def amend(name: str, source: Path, sentence: str | None) -> int:
    """Propose your own amendment of NAME's contract; `hz approve` makes it the next version."""
    from hz.commands.heinzel_manage import amend_command

    return amend_command(sys.stdout, name, source, sentence=sentence, environ=os.environ)


@click.command("lessons")
@click.argument("name")
@_JSON
def lessons(name: str, json_output: bool) -> int:
    """What NAME learned from you, with the edits each lesson came from."""
    from hz.commands.heinzel_manage import lessons_command

    return lessons_command(sys.stdout, name, json_output=json_output, environ=os.environ)


@click.command("dismiss")
@click.argument("name")
@click.argument("lesson")
def dismiss(name: str, lesson: str) -> int:
    """Dismiss a lesson (by id or its number in `hz heinzel lessons`): kept, never shown to a model again."""
    from hz.commands.heinzel_manage import dismiss_command

    return dismiss_command(sys.stdout, name, lesson, environ=os.environ)


@click.command("hide")
@click.argument("name")
@click.argument("target")
@click.option("--replace", "replacement", metavar="TEXT", help="Show the model this short text instead.")
def hide(name: str, target: str, replacement: str | None) -> int:
    """Hide a turn's line (by turn id) or a lesson (by id) from NAME's model; the record stays as it was.

    \b
    hz heinzel hide weekly 01JB3K…            the model no longer sees that turn
    hz heinzel hide weekly 01JB3K… --replace "drafted, then withdrawn"
    """
    from hz.commands.heinzel_manage import hide_command

    return hide_command(sys.stdout, name, target, replacement=replacement, environ=os.environ)


def _state_command(action: str, summary: str) -> click.Command:
    @click.command(action, help=summary)
    @click.argument("name")
    def command(name: str) -> int:
        from hz.commands.heinzel_manage import state_command

        return state_command(sys.stdout, action, name, environ=os.environ)

    return command


retire = _state_command("retire", "Retire NAME: kept with its session, never woken (undo with unretire).")
unretire = _state_command("unretire", "Bring a retired NAME back; it wakes at its next slot.")
pause = _state_command("pause", "Pause NAME: no wakes until unpause.")
unpause = _state_command("unpause", "Let a paused NAME wake again.")


@click.command("rename")
@click.argument("name")
@click.argument("new_name")
def rename(name: str, new_name: str) -> int:
    """Rename NAME to NEW_NAME (its id stays)."""
    from hz.commands.heinzel_manage import rename_command

    return rename_command(sys.stdout, name, new_name, environ=os.environ)


@click.command("prune")
@_JSON
def prune(json_output: bool) -> int:
    """Delete turn bodies and inbox messages older than [heinzel] retention_days (only files hz wrote)."""
    from hz.commands.heinzel_maintenance import prune_command

    return prune_command(sys.stdout, json_output=json_output, environ=os.environ)


@click.command("reindex")
def reindex() -> int:
    """Rebuild the index from the spines (nothing is lost: it is derived)."""
    from hz.commands.heinzel_maintenance import reindex_command

    return reindex_command(sys.stdout, environ=os.environ)


@click.command("repair")
@click.argument("name")
def repair(name: str) -> int:
    """Unfreeze NAME: move the lines of its spine from a break on into a file beside it, keep the rest."""
    from hz.commands.heinzel_maintenance import repair_command

    return repair_command(sys.stdout, name, environ=os.environ)
