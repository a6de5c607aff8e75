"""`hz state compact`: move closed work older than `--keep` days off the tip of the remote's `hz/state`.

One command migrates a branch written before the archive existed, and the same command, run now and then
(daily), keeps the tip bounded by live work (hz.gitstate.archive). The tip is read once and planned as steps
of at most `archive.STEP_MOST` events, each one commit pushed with compare-and-swap on the step before (a
migration is a few steps, each line printed as it lands); when a tick pushed in between, the rest is
planned again on the tip it left.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hz.errors import EXIT_OK, HzError
from hz.gitstate.layout import STATE_BRANCH, STATE_REF

if TYPE_CHECKING:
    from hz.gitstate import archive
    from hz.gitstate.remote import TeamRemote

ATTEMPTS = 5


def compact_command(
    root: Path, remote: str | None, keep_days: int, dry_run: bool, environ: Mapping[str, str] = os.environ
) -> int:
    from hz.gitstate import archive
    from hz.gitstate.archive_lint import MIN_CUT
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import load_state_settings

    if keep_days < MIN_CUT.days:
        raise HzError(f"--keep {keep_days} is below {MIN_CUT.days} day", hint=f"keep at least {MIN_CUT.days} day")
    team = TeamRemote(root, remote or load_state_settings(root).remote, environ)
    moved, refused = 0, 0
    while refused < ATTEMPTS:
        tip = team.fetch_tip(STATE_REF)
        if tip is None:
            click.echo(f"{STATE_BRANCH}: no such branch yet, nothing to archive")
            return EXIT_OK
        now = datetime.now(UTC)
        steps = archive.plans(team.repo, tip, now, timedelta(days=keep_days))
        age = f"more than {keep_days} day{'s' if keep_days != 1 else ''} ago"
        if not steps[0].moved:
            if not moved:
                click.echo(f"{STATE_BRANCH}: nothing closed {age}; {steps[0].live} live events on the tip")
            return EXIT_OK
        if dry_run:
            count = sum(len(step.moved) for step in steps)
            click.echo(f"would archive {count} events closed {age} in {len(steps)} "
                       f"step{'s' if len(steps) != 1 else ''}; {steps[-1].live} stay live")  # fmt: skip
            return EXIT_OK
        landed = _push_steps(team, steps, tip, now, age)
        moved += landed
        if landed == sum(len(step.moved) for step in steps):
            return EXIT_OK
        refused += 1  # a tick pushed in between: plan again on the tip it left
    raise HzError(f"{STATE_BRANCH} kept moving while the archive step was built", hint="run it again")


def _push_steps(team: TeamRemote, steps: list[archive.Plan], tip: str, now: datetime, age: str) -> int:
    """Push `steps` in order, each on the one before; the events moved until a push was refused."""
    from hz.gitstate import archive, objects

    moved = 0
    for step in steps:
        step.tip = tip
        commit = archive.build(team.repo, step, now)
        pushed = team.git.push(team.remote, {STATE_REF: commit}, {STATE_REF: tip})
        if pushed.hook_declined:
            raise HzError(f"the remote refused the archive step: {pushed.stderr.strip()}")
        if not pushed.ok:
            return moved
        objects.set_ref(team.repo, team.tracking(STATE_REF), commit)
        summary = ", ".join(f"{period} {len(files)}" for period, files in sorted(step.periods.items()))
        click.echo(f"archived {len(step.moved)} events closed {age} ({summary}); {step.live} stay live")
        moved, tip = moved + len(step.moved), commit
    return moved
