"""A valid contract to start every test from, and a helper to make one broken edit to it."""

from __future__ import annotations

GOOD = """\
---
name: weekly-digest
kind: responsibility
description: Keeps a weekly digest of what changed in this repository, for people who missed the week.
hz:
  schema: 1
  title: Weekly change digest
  owner: "@hz-maintainer"
  scope: team
  schedule: "0 8 * * MON"
  on: [commits]
  inputs:
    commits:
      source: "git:log"
      window: 7d
  outputs:
    digest:
      target: "state:reports/digest/{slot:%G-W%V}.md"
      facets: [summary, changes]
---

# Weekly change digest

### Goal

The digest for the past ISO week lists every change merged to main.

### Requires

- `commits`: the commits on main in the past seven days.

### Maintains

- `digest`: a short Markdown page.

#### summary

Material: the gist of the week.

#### changes

Material: one line per commit.

### Done when

- [ ] every commit of the week appears once
"""


def variant(old: str, new: str, text: str = GOOD) -> str:
    """GOOD with exactly one occurrence of `old` replaced by `new`."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def line_of(fragment: str, text: str) -> int:
    """The 1-based line on which `fragment` first occurs in `text`."""
    return text[: text.index(fragment)].count("\n") + 1
