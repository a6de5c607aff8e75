"""Whether a tick may skip the approval look: nothing it reads moved since the last look, and nothing
of it waits on the forge alone.

The look's verdicts follow from the fetched `main`, the draft branches and `hz/state` (the tick's one
fetch) and, with a forge, from pull requests closed there with their branch left in place. So when those
three tips are the ones the last look saw, no draft waited on a forge and no publish was left to try
again, the look would find what it found then: nothing. An idle tick then stays light: a line compared,
nothing heavy imported. Kept in the remote's private folder; a lost file costs one look.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hz.fsio import atomic_write, read_own

STAMP = "approvals-stamp"


def tips(view: Any, environ: Mapping[str, str]) -> str:
    """The three tips, and whether this tick can ask a forge (one that can may judge what one could not)."""
    drafts = sorted(f"{branch.ref} {branch.commit}" for branch in view.drafts.values())
    digest = hashlib.sha256("\n".join(drafts).encode()).hexdigest()[:32]
    return f"{view.main} {view.state} {digest} {'forge' if environ.get('GITHUB_TOKEN') else 'branches'}"


def unchanged(folder: Path, view: Any, environ: Mapping[str, str]) -> bool:
    """Nothing to look at again: the tips are the last look's, and that look left nothing open."""
    return read_own(folder / STAMP, 4096) == f"{tips(view, environ)} settled\n".encode()


def stamp(folder: Path, view: Any, *, waiting: bool, retry: bool, environ: Mapping[str, str]) -> None:
    """After a look: settled unless a draft waits on a forge (a pull request may be closed with no ref
    moving) or a publish is to be tried again."""
    forge = bool(environ.get("GITHUB_TOKEN"))
    state = "open" if (waiting and forge) or retry else "settled"
    atomic_write(folder / STAMP, f"{tips(view, environ)} {state}\n")
