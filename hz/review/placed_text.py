"""A team draft as placed, read from git: for the owner's lesson when a delegate or an Actions run placed it.

The owner's spine holds the text of the drafts this machine placed. One placed elsewhere is found through
its `draft.placed` on `hz/state` (the asset and the text's hash): in the copy a tick of this clone kept
while the draft waited (`refs/hz/sync/<remote>/placed/…`, hz.review.approval_watch.placed_copy), else on
the draft branch as this clone last fetched it, else the approved text itself when the reviewer changed
nothing. Only a text whose hash is the placed one counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hz.canonical import fingerprint_bytes
from hz.gitstate import objects
from hz.gitstate.layout import STATE_REF, event_path


def placed_text(root: Path, environ: Mapping[str, str], team_key: str, approved: str | None = None) -> str | None:
    """The text the team draft `team_key` was placed with, None when no copy of it is left in this clone."""
    from hz.gitstate.remote import TeamRemote
    from hz.gitstate.settings import load_state_settings
    from hz.review.approval_state import StateBook
    from hz.review.approval_watch import branch_of, placed_copy

    remote = TeamRemote(root, load_state_settings(root).remote, environ)
    book = StateBook(remote.repo, objects.resolve(remote.repo, remote.tracking(STATE_REF)))
    placed = book.read(event_path(team_key.split("@", 1)[0], "draft.placed", team_key))
    if placed is None:
        return None
    path, wanted = str(placed.data["asset"]).partition(":")[2], str(placed.data["hash"])
    branch = f"refs/heads/{branch_of(placed, '*')}".removesuffix("*")
    commits = [objects.resolve(remote.repo, placed_copy(remote, placed))]
    commits += [commit for _, commit in _refs(remote, remote.tracking(branch))]
    for commit in commits:
        text = _file_at(remote.repo, commit, path)
        if text is not None and fingerprint_bytes(text.encode("utf-8")) == wanted:
            return text
    if approved is not None and fingerprint_bytes(approved.encode("utf-8")) == wanted:
        return approved
    return None


def _refs(remote: Any, prefix: str) -> list[tuple[str, str]]:
    """The tips of the draft branches of this contract as this clone last fetched them."""
    repo = remote.repo
    return [(name, str(repo.references[name].target)) for name in repo.references if name.startswith(prefix)]


def _file_at(repo: Any, commit: str | None, path: str) -> str | None:
    import pygit2

    if commit is None:
        return None
    try:
        blob = repo[commit].peel(pygit2.Commit).tree[path]
        return bytes(repo[blob.id].data).decode("utf-8")
    except (KeyError, ValueError, UnicodeDecodeError):
        return None
