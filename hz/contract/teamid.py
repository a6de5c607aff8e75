"""HZC023: a team contract without an `id:` in a repository whose `hz.toml` has `[state]`.

Under `[state]` a team contract runs only under a lease named for its id, and its receipts on
`hz/state` carry that id, so a tick never adopts one without: each tick passes it over with "no
contract id" and the team waits for a digest nobody writes. Validation says so once, as a warning (the
contract itself is fine, and runs on its owner's machine once the repository drops `[state]`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from hz.contract.names import Entry
from hz.diagnostic import Diagnostic

CODE = "HZC023"
_HINT = (
    "add `id: <a fresh 26-character id>` to the frontmatter; mint one with "
    "`python -c 'import ulid; print(ulid.ULID())'`, never copy another contract's"
)


def missing_ids(entries: Iterable[Entry], root: Path | None) -> list[Diagnostic]:
    """One warning per team-scoped contract of the team layer that has no `id:`, when `[state]` is on."""
    if root is None or not coordinated(root):
        return []
    return [_warning(entry) for entry in entries if _needs_id(entry)]


def coordinated(root: Path) -> bool:
    """Whether `root/hz.toml` has a `[state]` table; a file that does not parse counts as one, as it
    does for the tick (team slots then wait), and its own error is reported where it is read."""
    from hz.errors import ConfigError
    from hz.gitstate.settings import read_hz_toml

    try:
        document = read_hz_toml(root)
    except ConfigError:
        return True
    return document is not None and "state" in document


def _needs_id(entry: Entry) -> bool:
    contract = entry.contract
    if contract is None or entry.file.layer.kind != "team":
        return False
    front = contract.frontmatter
    return front.hz.scope == "team" and front.id is None


def _warning(entry: Entry) -> Diagnostic:
    assert entry.contract is not None  # _needs_id checked it
    line, column = entry.contract.locate(("name",))
    return Diagnostic(
        entry.file.display, line, column, CODE, "warning", "id",
        "this team contract has no id, and hz.toml has [state]: no tick runs it (its lease and its "
        "receipts on hz/state are named by the id)",
        _HINT,
    )  # fmt: skip
