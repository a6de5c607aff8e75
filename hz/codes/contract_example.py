"""The clean contract every example of an HZC code varies, the helpers that vary it, and the stage names.

Each example is a set of files that `hz workflow validate` reports its code for; most are `BASE` with one
line swapped (`variant`), and a meta-test proves each still raises its code.
"""

from __future__ import annotations

BASE = """\
---
name: digest
kind: responsibility
description: Keeps a weekly digest of the repository's history.
hz:
  schema: 1
  title: Weekly digest
  owner: "@alice"
  scope: team
  schedule: "0 7 * * MON"
  inputs:
    history:
      source: "git:."
      window: 7d
  outputs:
    digest:
      target: "state:reports/digest.md"
      facets: [summary]
---

# Weekly digest

### Goal

The digest lists every commit of the past week.

### Requires

- `history`: the commits of the past seven days.

### Maintains

- `digest`: one Markdown page.

#### summary

Material: what changed.

### Done when

- [ ] every commit is listed once
"""

DIGEST = "workflows/digest.prose.md"


def variant(*swaps: tuple[str, str], text: str = BASE) -> str:
    """`text` with each (old, new) replaced once; the meta-test proves the result still raises its code."""
    for old, new in swaps:
        text = text.replace(old, new, 1)
    return text


def one(text: str, path: str = DIGEST) -> tuple[tuple[str, str], ...]:
    return ((path, text),)


_SOURCE = ('      source: "git:."\n', '      source: "{}"\n')


def reading(uri: str, text: str = BASE) -> str:
    return variant((_SOURCE[0], _SOURCE[1].format(uri)), text=text)


def named(name: str, text: str = BASE) -> str:
    return variant(("name: digest", f"name: {name}"), text=text)


_PUBLISH = "  publishes:\n    - action: {}\n      output: digest\n      target: state:reports/digest-copy.md\n{}"
OUTPUTS = "  outputs:\n"


def publishing(action: str, extra: str = "") -> str:
    return variant((OUTPUTS, _PUBLISH.format(action, extra) + OUTPUTS))


STAGE1 = "stage 1: frontmatter"
STAGE2 = "stage 2: body"
STAGE3 = "stage 3: registries and graph"
