"""`hz workflow new NAME`: a skeleton contract that validates clean, with a freshly minted id."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import click

from hz.commands.init import create_new
from hz.errors import EXIT_OK, HzError

SKELETON = """\
---
name: {name}
kind: responsibility
id: {id}
version: 0.1.0
description: Keeps the {lower} page current for the people who read it. Say here what stays true, and for whom.
hz:
  schema: 1
  title: {title}
  owner: "{owner}"
  scope: {scope}
  schedule: "0 9 * * MON"
  inputs:
    history:
      source: "git:."
      window: 7d
  outputs:
    page:
      target: "state:reports/{name}/{{slot:%G-W%V}}.md"
      facets: [summary]
---

# {title}

<!-- A first draft written by `hz workflow new`: replace every sentence with your own. -->

### Goal

The {lower} page for the past week is current and agrees with this repository's history.

### Requires

- `history`: the commits of this repository in the past seven days.

### Maintains

- `page`: one Markdown page per ISO week.

#### summary

Material: what changed and why it matters to readers. Immaterial: wording and the order of sentences.

### Steps

1. Read the week's history.
2. Say in a few sentences what changed.

### Done when

- [ ] every change that matters to readers is named
"""

_SLUG = re.compile(r"^[a-z](?:[a-z0-9]|-(?!-))*[a-z0-9]$|^[a-z]$")


def skeleton(name: str, *, owner: str, scope: str, contract_id: str) -> str:
    title = name.replace("-", " ").capitalize()
    return SKELETON.format(name=name, id=contract_id, title=title, lower=title.lower(), owner=owner, scope=scope)


def run_new(
    name: str, *, owner: str | None, scope: str, environ: Mapping[str, str] = os.environ, cwd: Path | None = None
) -> int:
    from ulid import ULID

    from hz.config import load_user_config
    from hz.contract.load import load_contract
    from hz.repo import find_root

    if not _SLUG.match(name) or len(name) > 64:
        raise HzError(f"{name!r} is not a contract name", hint="use lowercase letters, digits and single dashes")
    # an empty --owner is a mistake to tell, not a reason to fall back to the configured handle
    handle = owner if owner is not None else load_user_config(environ).handle or "@your-handle"
    handle = handle if handle.startswith("@") else "@" + handle
    path = find_root(cwd) / "workflows" / f"{name}.prose.md"
    text = skeleton(name, owner=handle, scope=scope, contract_id=str(ULID()))
    result = load_contract(path, text=text)
    if result.contract is None:
        raise HzError(f"cannot write a skeleton with owner {handle!r}", hint="pass --owner @your-github-handle")
    if not create_new(path, text):  # exclusive: never through a link planted under that name
        raise HzError(f"{path} already exists", hint="pick another name, or edit the existing contract")
    click.echo(f"wrote {path}")
    return EXIT_OK
