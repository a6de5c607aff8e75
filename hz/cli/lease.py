"""`hz lease`: the leases on refs/hz/lease/<id> (click wiring only)."""

from __future__ import annotations

import click

from hz.gitstate.remote_spec import remote_option

_remote = click.option(
    "--remote", callback=remote_option, help="Remote name or URL (default: [state] remote of hz.toml, else origin)."
)


def _ttl_within_limit(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A usage error for a TTL past what the hook accepts, before it reaches date arithmetic."""
    if value is None:
        return None
    from hz.gitstate.lease_lint import MAX_TTL  # here: only a --ttl pays for the import

    if value > MAX_TTL.total_seconds():
        raise click.BadParameter(f"{value} is more than {MAX_TTL.total_seconds():.0f} seconds", ctx, param)
    return value


@click.group()
def lease() -> None:
    """Leases that decide which runner takes a slot of a team contract."""


@lease.command("list")
@_remote
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(remote: str | None, as_json: bool) -> int:
    """List every lease on the remote with its holder (handle/machine), token and expiry: held, expired,
    or released (by a release, or by its turn's turn.finished on hz/state, read in the same look).

    A lease ref hz did not write (a tag, a foreign commit, a malformed record) is listed as damaged and
    the command exits 1: only an admin of the server can delete it."""
    from hz.commands.lease_cmds import default_context, list_command

    return list_command(default_context(remote), as_json)


@lease.command("log")
@click.argument("lease_id", metavar="ID")
@click.option(
    "--limit", type=click.IntRange(min=1), default=100, show_default=True, help="Show at most this many commits."
)
@_remote
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def log(lease_id: str, limit: int, remote: str | None, as_json: bool) -> int:
    """Show a lease's chain on the remote, newest first: each acquisition, renewal and release with its
    token, holder (handle/machine), role, slot, acquired and expiry times and state (`finished` and its
    time on the newest commit of a term its turn's turn.finished ended: such a term has no release).

    A slot taken twice shows as two tokens for one slot. A commit hz did not write is shown as damaged
    and the command exits 1: only an admin of the server can delete the ref."""
    from hz.commands.lease_cmds import default_context
    from hz.commands.lease_log import log_command

    return log_command(default_context(remote), lease_id, limit, as_json)


@lease.command("acquire")
@click.argument("lease_id", metavar="ID")
@click.option("--slot", required=True, help="The slot, a UTC time such as 2026-10-30T15:00:00Z.")
@click.option("--ttl", type=click.IntRange(min=1), callback=_ttl_within_limit,
              help="Seconds to hold it (default: [state] lease_ttl_s).")  # fmt: skip
@click.option(
    "--role", type=click.Choice(["owner", "delegate", "actions"]), help="Default: actions in Actions, else owner."
)
@click.option("--due", help="When the slot was due (default: the slot); others wait the grace period past it.")
@_remote
def acquire(lease_id: str, slot: str, ttl: int | None, role: str | None, due: str | None, remote: str | None) -> int:
    """Take the lease for a slot: exit 0 if won, 1 if someone else holds it (the holder is printed)."""
    from hz.commands.lease_cmds import acquire_command, default_context

    return acquire_command(default_context(remote), lease_id, slot, ttl, role, due)


@lease.command("renew")
@click.argument("lease_id", metavar="ID")
@_remote
def renew(lease_id: str, remote: str | None) -> int:
    """Extend a lease this machine holds (exit 1 if it was taken over)."""
    from hz.commands.lease_cmds import default_context, renew_command

    return renew_command(default_context(remote), lease_id, release=False)


@lease.command("release")
@click.argument("lease_id", metavar="ID")
@_remote
def release(lease_id: str, remote: str | None) -> int:
    """Give a lease up (a commit, never a deletion: its token stays)."""
    from hz.commands.lease_cmds import default_context, renew_command

    return renew_command(default_context(remote), lease_id, release=True)
