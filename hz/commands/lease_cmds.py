"""`hz lease list|acquire|renew|release`: leases as scripts and tests drive them (`log`: hz.commands.lease_log)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hz.errors import EXIT_ERROR, EXIT_OK, HzError
from hz.gitstate.layout import LEASE_PREFIX

if TYPE_CHECKING:
    from hz.gitstate.lease_record import LeaseRecord
    from hz.gitstate.lease_term import Reader
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import StateSettings


@dataclass(frozen=True)
class LeaseContext:
    root: Path
    remote: str | None
    now: datetime
    environ: Mapping[str, str]


def team_of(ctx: LeaseContext) -> tuple[TeamRemote, StateSettings]:
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import load_state_settings

    settings = load_state_settings(ctx.root)
    return TeamRemote(ctx.root, ctx.remote or settings.remote, ctx.environ), settings


def normalize_slot(value: str, option: str = "--slot") -> str:
    """A time of a lease record, in its one UTC spelling; only years the lease lint accepts (2000-2099)."""
    from hz.gitstate.lease_lint import EARLIEST, LATEST
    from hz.gitstate.types import format_utc

    shown = repr(value) if len(value) <= 40 else repr(value[:40]) + "…"
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise HzError(f"{option} {shown} is not a UTC time", hint="give a time like 2026-10-30T15:00:00Z") from exc
    if moment.tzinfo is None:
        raise HzError(f"{option} {shown} needs a time zone", hint="end it with Z for UTC")
    try:  # compared in UTC: 0001-01-01T00:00+01:00 is before year 1 there
        in_range = EARLIEST <= moment.astimezone(UTC) < LATEST
    except OverflowError:
        in_range = False
    if not in_range:
        raise HzError(
            f"{option} {shown} is not between the years {EARLIEST.year} and {LATEST.year - 1} (UTC)",
            hint="give a time like 2026-10-30T15:00:00Z",
        )
    return format_utc(moment)


def list_command(ctx: LeaseContext, as_json: bool) -> int:
    """Every lease on the remote; a lease ref hz did not write is listed as damaged, and exits 1."""
    from hz.gitstate.lease_lint import HINT_DAMAGED, DamagedLease

    team, _ = team_of(ctx)
    tips, read = snapshot(team, f"{LEASE_PREFIX}*")
    rows = [(ref.removeprefix(LEASE_PREFIX), tip, _read(team, ref, tip)) for ref, tip in sorted(tips.items())]
    ends = {lease_id: _ended(read, found) for lease_id, _, found in rows}
    if as_json:
        listed = [_as_json(lease_id, tip, found, ctx.now, ends[lease_id]) for lease_id, tip, found in rows]
        click.echo(json.dumps(listed, indent=2))
    else:
        lines = [_as_line(lease_id, found, ctx.now, ends[lease_id]) for lease_id, _, found in rows]
        click.echo("\n".join(lines) if lines else f"no leases on {team.label}")
    damaged = [lease_id for lease_id, _, read in rows if isinstance(read, str)]
    if damaged:  # after the listing: the healthy leases are worth seeing too
        ref = LEASE_PREFIX + damaged[0] if len(damaged) == 1 else f"{LEASE_PREFIX}<id>"
        raise DamagedLease(
            f"{len(damaged)} damaged lease ref{'s' if len(damaged) > 1 else ''} on {team.label}: {', '.join(damaged)}",
            hint=HINT_DAMAGED.format(ref=ref),
        )
    return EXIT_OK


def snapshot(team: TeamRemote, pattern: str) -> tuple[dict[str, str], Reader]:
    """The lease refs matching `pattern` and `hz/state` as the remote has them at one moment (one
    ls-remote, then the objects not here yet): the refs, and a reader of `hz/state` at that moment."""
    from hz.gitstate.layout import STATE_REF
    from hz.gitstate.lease_term import reader

    tips = team.git.ls_remote(team.remote, pattern, STATE_REF)
    team.bring(dict(tips))
    state = tips.pop(STATE_REF, None)
    return {ref: tip for ref, tip in tips.items() if ref.startswith(LEASE_PREFIX)}, reader(team.repo, state)


def _read(team: TeamRemote, ref: str, tip: str) -> LeaseRecord | str:
    """The record at a lease ref's tip, or why it is damaged."""
    from hz.gitstate.lease_lint import checked

    return checked(team.repo, ref, tip)


def _ended(read: Reader, found: LeaseRecord | str) -> str | None:
    """When the term at a lease's tip ended by its turn's `turn.finished` (hz.gitstate.lease_term), else None."""
    from hz.gitstate.lease_term import finish

    if isinstance(found, str) or found.state != "held":
        return None
    event = finish(read, found)
    return event.ts if event is not None else None


def status(record: LeaseRecord, now: datetime, finished: str | None = None) -> str:
    """What a lease is now: `held` (someone holds it), `released` (its term is over: its record says so, or
    its turn's `turn.finished` is on hz/state, `finished`) or `expired` (its holder stopped renewing: anyone
    may take it once the clock-skew margin passed too)."""
    if record.state == "released" or finished is not None:
        return "released"
    return "expired" if now >= _expiry(record) else "held"


def _expiry(record: LeaseRecord) -> datetime:
    from hz.gitstate.types import parse_utc

    return parse_utc(record.expires)


def _as_json(
    lease_id: str, tip: str, read: LeaseRecord | str, now: datetime, finished: str | None
) -> dict[str, object]:
    if isinstance(read, str):
        return {"lease": lease_id, "tip": tip, "damaged": read}
    said = status(read, now, finished)
    return {**read.model_dump(mode="json"), "tip": tip, "damaged": None, "status": said, "finished": finished}


_SAID = {"held": "held until", "released": "released at", "expired": "expired at"}


def _as_line(lease_id: str, read: LeaseRecord | str, now: datetime, finished: str | None) -> str:
    if isinstance(read, str):
        return f"{lease_id}  damaged: {read}"
    r = read
    said = _SAID[status(r, now, finished)]
    when = f"{finished} (its turn finished)" if finished is not None else r.expires
    return f"{r.lease}  {r.holder:<22} {r.role:<8} token {r.token:<5} slot {r.slot}  {said} {when}"


def acquire_command(
    ctx: LeaseContext, lease_id: str, slot: str, ttl_s: int | None, role: str | None, due: str | None
) -> int:
    from hz.config import load_user_config
    from hz.gitstate.identity import handle_of, whoami
    from hz.gitstate.lease import acquire
    from hz.gitstate.types import parse_utc

    team, settings = team_of(ctx)
    identity = whoami(ctx.environ, load_user_config(ctx.environ).handle)
    chosen = role or ("actions" if identity.in_actions else "owner")
    slot = normalize_slot(slot)
    _check_role(team, check_id(lease_id), identity.holder, chosen)
    outcome = acquire(
        team,
        lease_id,
        slot=slot,
        identity=identity,
        role=chosen,  # type: ignore[arg-type]
        now=ctx.now,
        settings=settings,
        due=parse_utc(normalize_slot(due, "--due") if due else slot),
        ttl=timedelta(seconds=ttl_s) if ttl_s else None,
    )
    record = outcome.record
    if outcome.won and record is not None:
        click.echo(f"won {lease_id} token {record.token} until {record.expires}")
        return EXIT_OK
    if outcome.status == "early":
        click.echo(f"not yet: the owner goes first until {outcome.not_before:%Y-%m-%dT%H:%M:%SZ}")
    elif outcome.status == "done":
        click.echo(f"slot {slot} of {lease_id} is done already")
    elif record is not None:
        mine = " on another machine of yours" if handle_of(record.holder) == identity.handle else ""
        click.echo(f"held by {record.holder}{mine} ({record.role}, token {record.token}) until {record.expires}")
    return EXIT_ERROR


def _check_role(team: TeamRemote, lease_id: str, holder: str, role: str) -> None:
    """The hook's role rule, before any push, where this clone's main has the lease's contract
    (the remote's hook has the final word; a remote without it has only this)."""
    from hz.gitstate.identity import handle_of
    from hz.gitstate.lease_lint import HINT_ROLE
    from hz.gitstate.lint_contracts import MainContracts

    contracts = MainContracts.read(team.repo, strict=False)
    if contracts is not None and (problem := contracts.holder_problem(lease_id, holder, role)):
        who = handle_of(holder)
        raise HzError(f"the contract on main does not let {who} hold {lease_id} as {role}: {problem}", hint=HINT_ROLE)


def renew_command(ctx: LeaseContext, lease_id: str, release: bool) -> int:
    from hz.gitstate.lease import renew

    team, settings = team_of(ctx)
    record = renew(team, check_id(lease_id), ctx.now, settings, release=release)
    verb = "released" if release else "renewed"
    click.echo(f"{verb} {lease_id} token {record.token} until {record.expires}")
    return EXIT_OK


def check_id(lease_id: str) -> str:
    import re

    if not re.match(r"^hz-[0-9A-HJKMNP-TV-Z]{26}$", lease_id):
        raise HzError(f"not a Heinzelmännchen id: {lease_id!r}", hint="ids look like hz-01JB… (26 characters)")
    return lease_id


def default_context(remote: str | None) -> LeaseContext:
    from datetime import UTC

    from hz.repo import find_root

    return LeaseContext(find_root(), remote, datetime.now(UTC), os.environ)
