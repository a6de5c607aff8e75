"""What `hz init` writes into a new team repository, as text with a few placeholders."""

from __future__ import annotations

# The action majors every generated workflow uses: both run on the Node 24 runtime, so GitHub and
# actionlint do not flag them as deprecated. The tests hold this repository's own workflows to them.
CHECKOUT = "actions/checkout@v7"
SETUP_PYTHON = "actions/setup-python@v7"
CACHE = "actions/cache@v5"

HZ_TOML = """\
# hz's settings for this repository. The file is committed: change it by pull request.

# Team coordination. With [state], each slot of a team contract runs once across the team: members'
# ticks and GitHub Actions runs take a lease on this remote first and record receipts on its hz/state
# branch. Without it, a team contract runs on its owner's machine alone.
[state]
remote = "origin"        # where hz/state and the leases refs/hz/lease/* live
tick_interval_s = 300    # how often members' daemons tick; the unit of the grace period
grace_intervals = 2      # a maintainer or an Actions run takes an owner's slot this many ticks late
lease_ttl_s = 900        # how long a lease holds before another member may take the slot over

# Who approved a draft. The forge names whoever merged a draft's pull request by login; a merge made
# by hand names its committer by e-mail address. List each member's addresses and logins here, so the
# approval is recorded under the member's handle (an address nobody lists is recorded as @unknown).
[team.members]
# "@priya" = ["priya@example.com", "priya-gh"]
"""

DEFAULTS = """\
# Defaults for every contract in this directory: any hz.* key, plus tz for schedules.
# A contract's own keys win; defaults count as if written in the contract (also for fingerprints).
hz:
  owner: "{owner}"
  tz: {tz}
"""

# The example has an id: under [state] a team contract runs only with one (it names the contract's
# lease and its receipts), and `hz init` mints a fresh one per repository.
EXAMPLE = """\
---
name: repo-digest
kind: responsibility
description: A weekly page of what changed in this repository, for teammates who were away.
id: {contract_id}
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
      target: "state:reports/repo-digest/{{slot:%G-W%V}}.md"
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

# Every workflow installs hz the same way. HZ_PACKAGE is a repository variable (Settings > Secrets and
# variables > Actions > Variables) holding a pip requirement of hz, pinned: a version, a wheel's URL or
# `hz @ git+https://…@<tag>`. Unset, the job stops with that hint rather than install whatever an index
# serves under a guessed name.
_INSTALL = """\
      - uses: @SETUP_PYTHON@
        with:
          python-version: "3.12"
      - name: Install hz
        env:
          HZ_PACKAGE: ${{ vars.HZ_PACKAGE }}
        run: |
          if [ -z "$HZ_PACKAGE" ]; then
            echo "::error::set the repository variable HZ_PACKAGE to a pinned pip requirement of hz"
            exit 1
          fi
          python -m pip install "$HZ_PACKAGE"
""".replace("@SETUP_PYTHON@", SETUP_PYTHON)

TICK_WORKFLOW = (
    """\
# Runs hz's tick for this team repository. Team contracts are leased, so a tick here and one on a
# teammate's machine never run the same slot twice; this run picks up the slots nobody else took
# within the grace period of hz.toml. Run it by hand (Actions > hz tick > Run workflow) to take a
# missed slot now rather than at the next quarter hour: a tick runs what is due, and each contract's
# catch_up says how far back that goes (`hz tick` takes no slot to name).
#
# Who runs: hz names this run `actions:<run id>` from GITHUB_RUN_ID, the Actions role of every team
# contract, so no handle is set here. Its commits (hz/state, leases, draft branches) are signed by hz
# itself and pushed with the checkout's token; GITHUB_TOKEN lets hz open a pull request per draft and
# read who merged it. Once a day the run also moves closed work off the tip of hz/state (`hz state
# compact`), so what every run fetches stays the size of a day's work, not of the team's history.
name: hz tick

on:
  schedule:
    - cron: "*/15 * * * *"
    - cron: "7 4 * * *"
  workflow_dispatch:

concurrency:
  group: hz-tick
  cancel-in-progress: false

permissions:
  contents: write        # push hz/state, the leases and hz/draft/* branches
  pull-requests: write   # open and update a pull request per draft

jobs:
  tick:
    runs-on: ubuntu-latest
    timeout-minutes: 20
    steps:
      # The default branch alone (not every branch: hz/state and the lease chains hold every slot the team
      # ever ran). hz tick fetches what else it reads: the tips of hz/state and of the leases, the drafts.
      - uses: @CHECKOUT@
      - name: Fetch the history of the default branch (approvals and git inputs read it)
        env:
          MAIN: ${{ github.event.repository.default_branch }}
        run: git fetch --no-tags --unshallow origin "+refs/heads/$MAIN:refs/remotes/origin/$MAIN"
@INSTALL@
      # Compiling every contract on main is most of what an empty home's first tick costs, so the compiled
      # contracts are kept between runs, keyed by main's contracts and the pinned hz. hz finds each entry by
      # the text it compiled and ignores a file another hz wrote: a stale key costs time, never a result.
      - name: Key of the compiled contracts
        id: compiled
        env:
          HZ_PACKAGE: ${{ vars.HZ_PACKAGE }}
          CONTRACTS: ${{ hashFiles('workflows/**') }}
        run: |
          hz=$(printf '%s' "$HZ_PACKAGE" | sha256sum | cut -c1-16)
          echo "prefix=hz-compiled-$hz-" >> "$GITHUB_OUTPUT"
          echo "key=hz-compiled-$hz-$CONTRACTS" >> "$GITHUB_OUTPUT"
      - uses: @CACHE@
        with:
          path: ${{ runner.temp }}/hz-compiled
          key: ${{ steps.compiled.outputs.key }}
          restore-keys: ${{ steps.compiled.outputs.prefix }}
      - name: Tick
        env:
          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
          HZ_COMPILE_CACHE: ${{ runner.temp }}/hz-compiled
        run: hz tick
      - name: Archive closed work of hz/state (the daily run)
        if: github.event.schedule == '7 4 * * *'
        run: hz state compact
""".replace("@CHECKOUT@", CHECKOUT)
    .replace("@CACHE@", CACHE)
    .replace("@INSTALL@\n", _INSTALL)
)

CHECK_WORKFLOW = """\
# Checks the team's contracts, settings and the generated CODEOWNERS on pull requests that touch them.
name: hz check

on:
  pull_request:
    paths:
      - "workflows/**"
      - "policies/**"
      - "hz.toml"
      - "CODEOWNERS"
      - ".github/CODEOWNERS"
      - "docs/CODEOWNERS"

permissions:
  contents: read

jobs:
  check:
    runs-on: ubuntu-latest
    timeout-minutes: 10
    steps:
      - uses: @CHECKOUT@
@INSTALL@
      - run: hz workflow validate
      - run: hz codeowners --check
""".replace("@CHECKOUT@", CHECKOUT).replace("@INSTALL@\n", _INSTALL)

STATE_LINT_WORKFLOW = """\
# Lints the team's hz/state branch: receipt-grade events only, append-only, no text and no addresses.
#
# GitHub reads a push-triggered workflow from the pushed commit, and hz/state is an orphan branch that
# holds nothing but events/, so the push trigger below fires only where the branch carries this file
# (a self-hosted remote enforces the same rules with `hz state install-hook`). Pushes made with an
# Actions token start no workflow either. The schedule, read from the default branch, is what makes
# sure every push to hz/state is linted within half an hour.
#
# A run fetches what its lint reads, not the branch's history: a push's run the commits since the push's
# old tip (`before`), a scheduled run the commits of the last day (runs every half hour overlap, a late or
# skipped one is covered), the lease chains from two days before those commits on, the default branch
# whole (contract versions) and the draft branches. A manual run lints the whole branch.
name: hz state lint

on:
  push:
    branches: [hz/state]
  schedule:
    - cron: "*/30 * * * *"
  workflow_dispatch:

permissions:
  contents: read

concurrency:
  group: hz-state-lint
  cancel-in-progress: false

jobs:
  lint:
    runs-on: ubuntu-latest
    timeout-minutes: 10
    steps:
      - uses: @CHECKOUT@
        with:
          ref: ${{ github.event.repository.default_branch }}
      - name: Fetch what the lint reads
        id: fetch
        env:
          MAIN: ${{ github.event.repository.default_branch }}
          BEFORE: ${{ github.event.before }}
          WHOLE: ${{ github.event_name == 'workflow_dispatch' }}
        run: |
          git fetch --no-tags --unshallow origin "+refs/heads/$MAIN:refs/remotes/origin/$MAIN"
          git fetch --no-tags origin "+refs/heads/hz/draft/*:refs/remotes/origin/hz/draft/*"
          state="+refs/heads/hz/state:refs/remotes/origin/hz/state"
          leases="+refs/hz/lease/*:refs/hz/lease/*"
          if [ -z "$(git ls-remote origin refs/heads/hz/state)" ]; then
            exit 0  # no hz/state yet: the lint says so
          fi
          if [ "$WHOLE" = true ]; then
            git fetch --no-tags origin "$state" "$leases"
            exit 0
          fi
          if [ -n "${BEFORE//0/}" ] && git fetch --no-tags --depth=1 origin "+$BEFORE:refs/hz/lint/before"; then
            git fetch --no-tags origin "$state"  # the pushed commits, down to the old tip it has
            base="$BEFORE"
          else  # the last day's commits, and the one before them to judge the first against
            git fetch --no-tags --depth=1 origin "$state"
            git fetch --no-tags --shallow-since="$(date -u -d '-1 day' +%Y-%m-%dT%H:%M:%SZ)" origin "$state"
            git fetch --no-tags --deepen=1 origin "$state"
            base="$(git rev-list refs/remotes/origin/hz/state | tail -n 1)"
          fi
          if [ -n "$(git ls-remote origin 'refs/hz/lease/*')" ]; then
            since="$(date -u -d "@$(( $(git log -1 --format=%ct "$base" --) - 2 * 86400 ))" +%Y-%m-%dT%H:%M:%SZ)"
            git fetch --no-tags --depth=1 origin "$leases"
            git fetch --no-tags --shallow-since="$since" origin "$leases"
          fi
          echo "base=$base" >> "$GITHUB_OUTPUT"
@INSTALL@
      - name: Lint
        env:
          BASE: ${{ steps.fetch.outputs.base }}
        run: |
          if [ -n "$BASE" ]; then
            hz state lint --since "$BASE"
          else
            hz state lint
          fi
""".replace("@CHECKOUT@", CHECKOUT).replace("@INSTALL@\n", _INSTALL)

# A local hook runs the `hz` each member installed to tick, so nothing is fetched and no address of
# hz's repository is guessed; hz's own repository also ships these hooks in .pre-commit-hooks.yaml.
PRE_COMMIT_HEADER = "repos:\n"
PRE_COMMIT_ENTRY = """\
  # hz: check contracts and CODEOWNERS before each commit (runs the hz on your PATH).
  - repo: local
    hooks:
      - id: hz-validate
        name: hz workflow validate
        entry: hz workflow validate
        language: system
        files: ^(workflows/|policies/|hz\\.toml$)
        pass_filenames: false
      - id: hz-codeowners
        name: hz codeowners --check
        entry: hz codeowners --check
        language: system
        files: ^(workflows/|(\\.github/|docs/)?CODEOWNERS$)
        pass_filenames: false
"""
PRE_COMMIT_HOOK_IDS = ("hz-validate", "hz-codeowners")
