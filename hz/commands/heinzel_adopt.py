"""Adopting the repository's contracts as Heinzelmännchen: what `hz workflow migrate` adds (issue 4)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import click

from hz.config import load_user_config
from hz.errors import EXIT_OK
from hz.heinzel.adopt import adopt
from hz.session.store import Store


def adopt_repository(root: Path, *, environ: Mapping[str, str], now: datetime | None = None) -> int:
    """Adopt every contract of `root` (idempotent); say on stderr what changed, one line per agent.

    Only changes are told (an agent created, an amendment proposed), so a second run prints nothing;
    stdout stays the schema report of `hz workflow migrate`, and contracts that do not compile are
    left to `hz workflow validate` to explain.
    """
    config = load_user_config(environ)
    with Store.from_environ(environ) as store:
        found = adopt(
            store, root, now=now or datetime.now(UTC), handle=config.handle, environ=environ,
            default_tz=config.timezone or "UTC",
        )  # fmt: skip
    for item in found:
        if item.action in ("created", "amendment proposed"):
            click.echo(f"{item.namespace}:{item.name}: {_said(item.action, item.agent_id, item.name)}", err=True)
    return EXIT_OK


def _said(action: str, agent_id: str | None, name: str) -> str:
    if action == "created":
        return f"Heinzelmännchen created ({agent_id}), asleep at v1"
    return f"the file changed: amendment proposed (hz heinzel show {name}, then hz approve)"
