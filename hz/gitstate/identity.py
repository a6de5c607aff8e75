"""Who am I, as a runner of team contracts: a member on one machine, or a GitHub Actions run.

A lease's holder names the machine as well as the handle (`@priya/m-1a2b3c4d`), so a member's laptop
and desktop compete for a slot like two members do, and never share a fencing token. The machine id
is random, made once and kept 0600 in `$HZ_HOME/machine-id`: the host's name would put personal data
on the team's refs, and would change with it. An Actions run is `actions:<run id>` (its home is fresh).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hz.errors import HzError
from hz.gitstate.shapes import MACHINE

_HANDLE = re.compile(r"^@?([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$")
_RUN_ID = re.compile(r"^[0-9]{1,20}$")
_MACHINE = re.compile(rf"^{MACHINE}$")
MACHINE_FILE = "machine-id"


class NoIdentity(HzError):
    """hz does not know which member (or which Actions run) is acting."""


@dataclass(frozen=True)
class Identity:
    holder: str  # what a lease records: `@handle/m-<id>` or `actions:<run id>`
    handle: str | None  # the member's `@handle`; None for an Actions run
    in_actions: bool
    machine: str | None = None  # this machine's id; None for an Actions run

    def role_for(self, owner: str | None, maintainers: tuple[str, ...] = ()) -> str | None:
        """owner, delegate or actions for a contract with this owner and maintainers; None: not allowed.
        Roles belong to the handle: every machine of the owner is the owner."""
        if self.in_actions:
            return "actions"
        if owner is None or self.handle == member_handle(owner):
            return "owner"
        if self.handle in {member_handle(m) for m in maintainers}:
            return "delegate"
        return None


def normalize_handle(value: str) -> str:
    match = _HANDLE.match(value.strip())
    if not match:
        raise NoIdentity(f"not a handle: {value!r}", hint="a handle looks like @priya (letters, digits, dashes)")
    return "@" + match.group(1)


def member_handle(value: str) -> str | None:
    """A contract's owner or maintainer as a member's handle; None for what no member's handle can be
    (a team, `@acme/platform`, which contracts allow): it gives nobody a role, and is no error."""
    try:
        return normalize_handle(value)
    except NoIdentity:
        return None


def handle_of(holder: str) -> str:
    """The member part of a holder (`@priya` of `@priya/m-1a2b3c4d`); an Actions run is itself."""
    return holder.split("/", 1)[0]


def whoami(environ: Mapping[str, str] = os.environ, handle: str | None = None, machine: str | None = None) -> Identity:
    """In GitHub Actions (`GITHUB_ACTIONS=true`) the holder is `actions:<GITHUB_RUN_ID>`; otherwise the
    member's handle (`HZ_HANDLE`, else `handle`, the user config's `[user] handle`) on this machine
    (`machine`, else the id kept in the home that `environ` names)."""
    if environ.get("GITHUB_ACTIONS") == "true":
        run_id = environ.get("GITHUB_RUN_ID", "")
        if not _RUN_ID.match(run_id):
            raise NoIdentity("GITHUB_ACTIONS is set but GITHUB_RUN_ID is not a run id")
        return Identity(f"actions:{run_id}", None, True)
    value = environ.get("HZ_HANDLE") or handle
    if not value:
        raise NoIdentity(
            "no handle: hz does not know who you are",
            hint='set [user] handle = "@you" in config.toml, or HZ_HANDLE',
        )
    member = normalize_handle(value)
    if machine is None:
        from hz.config import private_home

        machine = machine_id(private_home(environ))
    return Identity(f"{member}/{machine}", member, False, machine)


def machine_id(home: Path) -> str:
    """This machine's id, made on first use. Of two processes making it at once, one link wins and
    both return the winner's id, so a machine never holds leases under two ids."""
    path = home / MACHINE_FILE
    if not path.exists():
        _create(path, f"m-{secrets.token_hex(4)}")
    return _read(path)


def _read(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            value = handle.read(64).decode("ascii", errors="replace").strip()
    except OSError as exc:
        raise NoIdentity(f"cannot read {path}: {exc.strerror}") from exc
    if not _MACHINE.match(value):
        raise NoIdentity(
            f"{path} is damaged: it holds no machine id",
            hint="remove it; hz makes a new one (leases held under the old id expire as another machine's)",
        )
    return value


def _create(path: Path, value: str) -> None:
    """Write the file completely under a temporary name, then link it into place (never over a file
    another process linked first)."""
    import tempfile

    from hz.fsio import FILE_MODE, fsync_dir, private_dir

    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(value + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another process was first: its id is this machine's
            os.link(tmp, path)
    finally:
        os.unlink(tmp)
    fsync_dir(path.parent)
