"""A home with something to show: agents made the way `hz heinzel new` and `hz approve` make them, one
with a placed draft and a finished turn, one proposed, for the operations and their heads."""

from __future__ import annotations

import io
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from hz.cli import run
from tests.turn.agents import adopt, contract_text

MONDAY = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)


def busy_home(repo: Path) -> str:
    """In the repository `repo` (the current directory): `weekly-note` drafted its note, `idle-note` is
    proposed. The id of `weekly-note`."""
    from hz.heinzel.lifecycle import Origin, create
    from hz.session.store import Store
    from hz.tick.daemon import tick

    agent = adopt(contract_text(), now=MONDAY)
    with Store.from_environ(os.environ) as store:
        create(store, contract_text("idle-note"), label="<test>", namespace="me", handle="@priya",
               origin=Origin("file"), now=MONDAY, name="idle-note")  # fmt: skip
    tick(root=repo, environ=os.environ, now=MONDAY)
    return agent


def cli_json(*argv: str) -> object:
    """What `hz … --json` prints, run in this process through the CLI's own entry."""
    import contextlib

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run([*argv, "--json"])
    assert code == 0, out.getvalue()
    return json.loads(out.getvalue())
