"""`hz state log`: the events on `hz/state`, oldest first, with void (stale-token) events marked."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import click

from hz.errors import EXIT_OK
from hz.gitstate.layout import STATE_BRANCH, STATE_REF


def log_command(
    root: Path,
    remote: str | None,
    hz_id: str | None,
    as_json: bool,
    fetch: bool,
    environ: Mapping[str, str] = os.environ,
) -> int:
    from hz.gitstate.objects import resolve
    from hz.gitstate.reader import history
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import load_state_settings
    from hz.heinzel.identity import check_agent_id

    if hz_id is not None:  # before any fetch: a typo is told at once, not as an empty log
        check_agent_id(hz_id)
    team = TeamRemote(root, remote or load_state_settings(root).remote, environ)
    tip = team.current(STATE_REF) if fetch else resolve(team.repo, team.tracking(STATE_REF))
    tip = tip or resolve(team.repo, STATE_REF)
    landed = [] if tip is None else [e for e in history(team.repo, tip) if hz_id is None or e.event.id == hz_id]
    if as_json:
        click.echo(json.dumps([e.to_json() for e in landed], indent=2))
    elif tip is None:
        click.echo(f"{STATE_BRANCH}: no events yet")
    else:
        for item in landed:
            e = item.event
            void = "  VOID (stale token)" if item.void else ""
            click.echo(f"{e.ts}  {e.kind:<17}  {e.key}  token {e.token}{void}")
    return EXIT_OK
