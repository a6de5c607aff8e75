"""Who approved a team draft, as a roster handle: the `[team.members]` table of `hz.toml` on `main`.

    [team.members]
    "@priya" = ["priya@example.com", "priya-gh"]   # the e-mail addresses and forge logins of a member
    "@omar" = ["omar-gh"]

The forge names who merged a pull request by login; a merge made by hand names its committer by e-mail.
Neither may reach `hz/state` (no addresses there, ADR 0024 §6), so both are mapped to the member's
handle here. Only a member approves (hz.review.approval_watch): a merger or committer the roster does not
list approves nothing. Who rejected is named the same way; one nobody lists is `UNKNOWN`, which the
roster refuses as a member's handle so it can never name a real member. The roster is the one on the
fetched `main` (hz.gitstate.main_toml): a pull request that edits it counts only once it is merged.

The file is committed, so anyone on the team can change it by pull request: a handle, an e-mail or a
login of the wrong shape, a value listed for two members, or more entries than a team has, are errors
with the file's name, never a silent fallback.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hz.errors import ConfigError

UNKNOWN = "@unknown"
"""The approver of a merge whose committer the roster does not list (a handle no member may take)."""

MAX_MEMBERS = 1000
MAX_NAMES = 16  # e-mail addresses and logins per member
_HANDLE = re.compile(r"^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
# an address as a committer line holds it: no blanks, no angle brackets, one @, a dot in the domain part
_EMAIL = re.compile(r"^[^\s<>@\x00-\x1f\x7f]{1,64}@[^\s<>@\x00-\x1f\x7f]{1,189}$")
_HINT = 'write [team.members] with "@handle" = ["e-mail address", "forge login"] in hz.toml'


@dataclass(frozen=True)
class Roster:
    """E-mail addresses and logins (lower-cased) to the member's handle."""

    by_email: Mapping[str, str] = field(default_factory=dict)
    by_login: Mapping[str, str] = field(default_factory=dict)

    def for_login(self, login: str) -> str | None:
        """The member who merged on the forge: listed, else `@login` itself; None for no login's shape."""
        if (listed := self.by_login.get(login.casefold())) is not None:
            return listed
        return "@" + login if _LOGIN.match(login) else None

    def for_email(self, email: str) -> str:
        """The member who committed the merge by hand, or UNKNOWN."""
        return self.by_email.get(email.strip().casefold(), UNKNOWN)

    @property
    def members(self) -> frozenset[str]:
        """Every member's handle (a member with no address or login listed names nobody here)."""
        return frozenset({*self.by_email.values(), *self.by_login.values()})

    def member_login(self, login: str) -> str | None:
        """The member a forge login belongs to; None for anyone the roster does not list (no approver)."""
        return self.by_login.get(login.strip().casefold())

    def member_email(self, email: str) -> str | None:
        """The member a committer's address belongs to; None for anyone the roster does not list."""
        return self.by_email.get(email.strip().casefold())


def load_roster(root: Path) -> Roster:
    """The `[team.members]` roster of `root/hz.toml`; empty without the file or the table."""
    from hz.gitstate.settings import HZ_TOML, read_hz_toml

    return roster_of(read_hz_toml(root), root / HZ_TOML)


def roster_of(document: Mapping[str, Any] | None, path: Path) -> Roster:
    """The `[team.members]` roster of a parsed hz.toml (`path` names it in messages)."""
    team = (document or {}).get("team", {})
    if not isinstance(team, dict):
        raise ConfigError(f"{path}: team must be a table", hint=_HINT)
    members = team.get("members", {})
    if not isinstance(members, dict):
        raise ConfigError(f"{path}: team.members must be a table", hint=_HINT)
    return parse_members(path, members)


def parse_members(path: Path, members: Mapping[str, Any]) -> Roster:
    if len(members) > MAX_MEMBERS:
        raise ConfigError(f"{path}: team.members lists more than {MAX_MEMBERS} members", hint=_HINT)
    by_email: dict[str, str] = {}
    by_login: dict[str, str] = {}
    for handle, names in members.items():
        _check_handle(path, handle)
        if not isinstance(names, list) or len(names) > MAX_NAMES or not all(isinstance(n, str) for n in names):
            raise ConfigError(
                f"{path}: team.members.{handle} must be a list of at most {MAX_NAMES} strings", hint=_HINT
            )
        for name in names:
            book = by_email if "@" in name else by_login
            if not (_EMAIL if book is by_email else _LOGIN).match(name):
                raise ConfigError(f"{path}: team.members.{handle}: {_short(name)} is no e-mail address or login")
            if book.setdefault(name.casefold(), handle) != handle:
                raise ConfigError(f"{path}: team.members lists {_short(name)} for two members", hint=_HINT)
    return Roster(by_email, by_login)


def _check_handle(path: Path, handle: str) -> None:
    if not _HANDLE.match(handle):
        raise ConfigError(f"{path}: team.members: {_short(handle)} is no handle (@letters-digits-dashes)", hint=_HINT)
    if handle.casefold() == UNKNOWN:
        raise ConfigError(f"{path}: team.members: {UNKNOWN} names a merger the roster does not list", hint=_HINT)


def _short(value: str) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
