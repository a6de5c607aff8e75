"""What `hz init` writes into a new team repository, as text with a few placeholders."""

from __future__ import annotations

DEFAULTS = """\
# Defaults for every contract in this directory: any hz.* key, plus tz for schedules.
# A contract's own keys win; defaults count as if written in the contract (also for fingerprints).
hz:
  owner: "{owner}"
  tz: {tz}
"""

EXAMPLE = """\
---
name: repo-digest
kind: responsibility
description: A weekly page of what changed in this repository, for teammates who were away.
hz:
  schema: 1
  title: Weekly repository digest
  scope: team
  schedule: "0 8 * * MON"
  on: [history]
  inputs:
    history:
      source: "git:."
      window: 7d
  outputs:
    digest:
      target: "state:reports/repo-digest/{slot:%G-W%V}.md"
      facets: [summary, changes]
---

# Weekly repository digest

<!-- An example from `hz init`: edit it, or delete it once you have contracts of your own. -->

### Goal

Each Monday morning the digest of the past week says what changed in this repository and why it matters.

### Requires

- `history`: the commits that reached the default branch in the past seven days.

### Maintains

- `digest`: one Markdown page per ISO week.

#### summary

Material: two or three sentences on the week's most important changes.

#### changes

Material: one line per change, grouped by area, linking the commit.
Immaterial: commit times and the order of lines within a group.

### Steps

1. Fold fix-ups and reverts into the change they belong to.
2. Prefer what users of the repository notice over internal chores.

### Done when

- [ ] every commit of the week is covered by exactly one line under changes
- [ ] the summary mentions nothing that is not under changes
"""

POLICIES = """\
# Auto-approval policies. A publish with `auto_approve: <id>` skips the human only while a policy
# below has that id, is not expired, and matches the contract's owner, action and scope.
# Example (remove the leading '# ' to enable):
#
# [policy.repo-digest-to-state]
# owner = "{owner}"
# action = "state.file.write"
# scope = "team"
# expires = 2027-01-31                 # required: a TOML date (inclusive, UTC)
# contracts = ["team:repo-digest"]     # optional: only these contracts may use it
"""

# Both workflows install hz the same way: from a pinned requirement the team sets, never a guess.
_INSTALL_STEPS = """\
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install hz
        run: |
          if [ -z "$HZ_PACKAGE" ]; then
            echo "::error::set the repository variable HZ_PACKAGE to a pinned pip requirement of hz"
            exit 1
          fi
          python -m pip install "$HZ_PACKAGE"
"""

TICK_WORKFLOW = """\
# Runs hz's tick for this team repository. Team contracts are leased, so a tick here and one on a
# teammate's machine never run the same slot twice; this run only picks up slots left undone.
name: hz tick

on:
  schedule:
    - cron: "*/15 * * * *"
  workflow_dispatch:

concurrency:
  group: hz-tick
  cancel-in-progress: false

permissions:
  contents: write

jobs:
  tick:
    runs-on: ubuntu-latest
    timeout-minutes: 20
    env:
      HZ_PACKAGE: ${{ vars.HZ_PACKAGE }}
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
@INSTALL_STEPS@
      - run: hz tick
""".replace("@INSTALL_STEPS@\n", _INSTALL_STEPS)

CHECK_WORKFLOW = """\
# Checks contracts and the generated CODEOWNERS on every pull request.
name: hz check

on:
  pull_request:

permissions:
  contents: read

jobs:
  check:
    runs-on: ubuntu-latest
    env:
      HZ_PACKAGE: ${{ vars.HZ_PACKAGE }}
    steps:
      - uses: actions/checkout@v4
@INSTALL_STEPS@
      - run: hz workflow validate
      - run: hz codeowners --check
""".replace("@INSTALL_STEPS@\n", _INSTALL_STEPS)
