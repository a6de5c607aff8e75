"""`hz state lint` and `hz state install-hook`: keep text and rewrites off `hz/state`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hz.commands.state_hook import hook_command as hook_command
from hz.diagnostic import Diagnostic, dumps_json, render_all
from hz.errors import EXIT_ERROR, EXIT_OK, HzError
from hz.gitstate.layout import STATE_BRANCH, STATE_REF

if TYPE_CHECKING:
    import pygit2

CANDIDATES = (STATE_REF, f"refs/remotes/origin/{STATE_BRANCH}")


def lint_command(root: Path, span: str | None, as_json: bool, since: str | None = None) -> int:
    import pygit2

    repo = pygit2.Repository(str(root))
    if span is not None and since is not None:
        raise HzError("give --range or --since, not both", hint="--since X lints X..hz/state")
    if span is not None:
        base, upto = _parse_range(repo, span)
        _whole_history(repo, upto)
        return _report(_lint(repo, base, upto, history=False), as_json)
    tip = _default_tip(repo, root)
    if tip is None:
        click.echo(f"{STATE_BRANCH}: no such branch yet, nothing to lint")
        return EXIT_OK
    if since is not None:
        return _lint_since(repo, since, tip, as_json)
    _whole_history(repo, tip)
    return _report(_lint(repo, None, tip, history=True), as_json)


def _lint_since(repo: pygit2.Repository, since: str, tip: str, as_json: bool) -> int:
    """Only what came after `since`, saying on stderr how much was read (or why it was all of it)."""
    from hz.gitstate.lint import LintContext
    from hz.gitstate.lint_since import lint_counted, since_base

    base, why = since_base(repo, since, tip)
    if base is None:
        _whole_history(repo, tip)
    else:
        _range_whole(repo, base, tip)
    if why is not None:
        click.echo(f"hz state lint: {why}; linting all of {STATE_BRANCH}", err=True)
    run = lint_counted(repo, base, tip, LintContext.local(repo))
    start = f" since {base[:12]}" if base is not None else ""
    click.echo(f"hz state lint: {_count(run.commits, 'commit')}, {_count(run.events, 'event')}{start}", err=True)
    return _report(run.found, as_json)


def _whole_history(repo: pygit2.Repository, tip: str) -> None:
    """Refuse a clone that holds hz/state or a lease chain only from a shallow boundary on."""
    from hz.gitstate.lint_since import CUT, CUT_HINT, cut_short

    if cut_short(repo, tip):
        raise HzError(f"{STATE_BRANCH}: {CUT}", hint=CUT_HINT)


def _range_whole(repo: pygit2.Repository, base: str, tip: str) -> None:
    """Refuse a range with a commit whose parent this clone lacks; a clone that holds `base` and what came
    after it (the state-lint workflow's) lints the range as a whole clone would, its lease chains from a date
    on (a token older than what it fetched is not held against an event: hz.gitstate.lint_fence)."""
    from hz.gitstate.lint_since import CUT, CUT_HINT, cut_within

    if cut_within(repo, base, tip):
        raise HzError(f"{STATE_BRANCH}: {CUT}", hint=CUT_HINT)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _lint(repo: pygit2.Repository, base: str | None, tip: str, *, history: bool) -> list[Diagnostic]:
    """`history`: the whole branch, where receipts written before a rule tightened are read as they are."""
    from hz.gitstate.lint import LintContext, lint_range

    return lint_range(repo, base, tip, LintContext.local(repo, history=history))


def _report(found: list[Diagnostic], as_json: bool, err: bool = False) -> int:
    if as_json:
        click.echo(dumps_json(found))
    elif found:
        click.echo(render_all(found), err=err)
    else:
        click.echo(f"{STATE_BRANCH}: clean")
    return EXIT_ERROR if found else EXIT_OK


def _parse_range(repo: pygit2.Repository, span: str) -> tuple[str | None, str]:
    left, sep, right = span.partition("..")
    if not sep or not right:
        raise HzError(f"not a range: {span!r}", hint="give A..B, e.g. --range origin/hz/state..hz/state")
    base = None if not left or set(left) == {"0"} else _resolve(repo, left)
    return base, _resolve(repo, right)


def _resolve(repo: pygit2.Repository, rev: str) -> str:
    import pygit2

    try:
        return str(repo.revparse_single(rev).peel(pygit2.Commit).id)
    except (KeyError, ValueError) as exc:
        raise HzError(f"unknown revision {rev!r}", hint="fetch hz/state first") from exc


def _default_tip(repo: pygit2.Repository, root: Path) -> str | None:
    """The local branch, else git's remote-tracking branch, else what hz itself fetched last."""
    from hz.gitstate.objects import resolve
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import load_state_settings

    fetched = TeamRemote(root, load_state_settings(root).remote).tracking(STATE_REF)
    for ref in (*CANDIDATES, fetched):
        if (tip := resolve(repo, ref)) is not None:
            return tip
    return None


def install_hook_command(bare: Path) -> int:
    from hz.gitstate.hook import install_hook

    hook = install_hook(bare, sys.executable)
    click.echo(f"installed {hook}")
    return EXIT_OK
