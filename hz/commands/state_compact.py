"""`hz state compact`: move closed work older than the horizon off the tip of the remote's `hz/state`.

One command migrates a branch written before the archive existed, and the same command, run now and then
(weekly is plenty), keeps the tip bounded by live work (hz.gitstate.archive). Each step is one commit of at
most `archive.STEP_MOST` events pushed with compare-and-swap on the tip it was built on (a migration is a
few steps, each line printed as it lands); when a tick pushed in between, the step is built again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click

from hz.errors import EXIT_OK, HzError
from hz.gitstate.layout import STATE_BRANCH, STATE_REF

ATTEMPTS = 5


def compact_command(
    root: Path, remote: str | None, keep_days: int, dry_run: bool, environ: Mapping[str, str] = os.environ
) -> int:
    from hz.gitstate import archive, objects
    from hz.gitstate.archive_lint import MIN_KEEP
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import load_state_settings

    if keep_days < MIN_KEEP.days:
        raise HzError(f"--keep {keep_days} is below {MIN_KEEP.days} days", hint=f"keep at least {MIN_KEEP.days} days")
    team = TeamRemote(root, remote or load_state_settings(root).remote, environ)
    moved, refused = 0, 0
    while refused < ATTEMPTS:
        tip = team.fetch_tip(STATE_REF)
        if tip is None:
            click.echo(f"{STATE_BRANCH}: no such branch yet, nothing to archive")
            return EXIT_OK
        now = datetime.now(UTC)
        step = archive.plan(team.repo, tip, now, timedelta(days=keep_days))
        horizon = step.horizon.strftime("%Y-%m-%d")
        if not step.moved:
            if not moved:
                click.echo(f"{STATE_BRANCH}: nothing closed older than {horizon}; {step.live} live events on the tip")
            return EXIT_OK
        summary = ", ".join(f"{period} {len(files)}" for period, files in sorted(step.periods.items()))
        if dry_run:
            more = " (and more in further steps)" if step.more else ""
            click.echo(f"would archive {len(step.moved)} events before {horizon} ({summary}){more}; "
                       f"{step.live} stay live")  # fmt: skip
            return EXIT_OK
        commit = archive.build(team.repo, step, now)
        pushed = team.git.push(team.remote, {STATE_REF: commit}, {STATE_REF: tip})
        if pushed.ok:
            objects.set_ref(team.repo, team.tracking(STATE_REF), commit)
            moved += len(step.moved)
            click.echo(f"archived {len(step.moved)} events before {horizon} ({summary}); {step.live} stay live")
            continue
        if pushed.hook_declined:
            raise HzError(f"the remote refused the archive step: {pushed.stderr.strip()}")
        refused += 1
    raise HzError(f"{STATE_BRANCH} kept moving while the archive step was built", hint="run it again")
