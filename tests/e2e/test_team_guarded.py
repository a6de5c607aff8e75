"""A new team's day with hz, against a remote that runs hz's own pre-receive hook.

The remote is a bare repository with `hz state install-hook`, served by a loopback `git daemon`. The
team repository is made with `hz init`, an `hz.toml` naming the remote and an hourly team contract
(owner @ann, maintainer @bob). Each member is a separate process with their own clone, `$HZ_HOME`,
config home and handle: ann (the owner), bob (a maintainer), carol (not a member) and an Actions-like
run (GITHUB_ACTIONS, a fresh clone and an empty home). The clock is pinned with `hz tick --now`, on a
past day (the hook refuses a lease acquired more than an hour past the server's clock).

What it guards: hz's own legitimate flow is never refused by hz's own hook, `hz state lint` stays
clean in every clone, and every command exits 0 where nothing is wrong, also when the contract on
`main` changes its target in the middle of the day.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.commands.approve import approve_command
from hz.commands.heinzel_adopt import adopt_repository
from hz.gitstate.events import Event, path_of
from hz.review.branches import branch_name
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (fixtures: the guarded remote)

CONTRACT_ID = "01KC0000000000000000000001"
LEASE = f"hz-{CONTRACT_ID}"
DAY = "2026-11-30"
CONTRACT = f"""---
name: hourly
kind: responsibility
id: {CONTRACT_ID}
description: An hourly page of what changed in this repository.
hz:
  schema: 1
  title: Hourly repository page
  owner: "@ann"
  maintainers: ["@bob"]
  scope: team
  schedule: "0 * * * *"
  inputs:
    history:
      source: "git:."
      window: 1d
  outputs:
    page:
      target: "state:reports/{{slot:%Y-%m-%d-%H}}.md"
      facets: [summary]
---

# Hourly repository page

### Goal

Each hour the page says what changed in this repository.

### Requires

- `history`: the recent commits.

### Maintains

- `page`: one page per hour.

#### summary

Material: what changed.

### Done when

- [ ] every commit is covered
"""
DECIDED = re.compile(r"[\w-]+: hz-[0-9A-Z]+@v\d+@\S+ ((rejected|superseded)( by \S+)?|approved( .*)?)")
MOVED = CONTRACT.replace("state:reports/{slot", "state:reports/hourly/{slot")


def at(hhmm: str) -> str:
    return f"{DAY}T{hhmm}:00Z"


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@dataclass(frozen=True)
class Member:
    name: str
    clone: Path
    env: dict[str, str]

    def hz(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hz", *argv], cwd=self.clone, env=self.env, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip

    def adopt(self, when: str) -> None:
        """`hz workflow migrate`'s adoption, at a pinned time (the command itself takes the clock's)."""
        assert adopt_repository(self.clone, environ=self.env, now=moment(when)) == 0

    def tick(self, when: str) -> list[str]:
        """One tick; a legitimate one exits 0 and nothing in it was refused. Its lines of output about slots.

        Approval bookkeeping lines (`… <draft key> rejected|superseded|approved …`) are left out: any member's tick
        records the fate of a draft a later slot's draft superseded (docs/decisions.md, "Approval is
        bookkeeping"), whichever member ticks first; `hz state log` shows those fates once each."""
        done = self.hz("tick", "--now", when)
        said = done.stdout + done.stderr
        assert (done.returncode, "refuse" in said, "error" in said) == (0, False, False), said
        return [line for line in done.stdout.splitlines() if not DECIDED.fullmatch(line)]

    def clean(self) -> None:
        """Every reading command works and the whole of hz/state lints clean here."""
        for argv in (("state", "log"), ("lease", "list"), ("drafts",)):
            done = self.hz(*argv)
            assert done.returncode == 0, (argv, done.stdout, done.stderr)
        lint = self.hz("state", "lint")
        assert (lint.returncode, lint.stdout, lint.stderr) == (0, "hz/state: clean\n", "")


def moment(when: str) -> datetime:
    return datetime.fromisoformat(when.replace("Z", "+00:00")).astimezone(UTC)


def member(tmp: Path, url: str, name: str, **extra: str) -> Member:
    clone = tmp / name / "repo"
    git("clone", "-q", url, str(clone))
    env = {**os.environ, "HZ_HOME": str(tmp / name / "hz"), "HZ_CONFIG_HOME": str(tmp / name / "config"), **extra}
    return Member(name, clone, env)


def person(tmp: Path, url: str, name: str) -> Member:
    return member(tmp, url, name, HZ_HANDLE=f"@{name}")


def actions(tmp: Path, url: str, run: str) -> Member:
    """An Actions-like run: no handle, the run's id, a fresh clone and an empty home."""
    return member(tmp, url, f"actions-{run}", GITHUB_ACTIONS="true", GITHUB_RUN_ID=run)


def commit_to_main(who: Member, path: str, text: str | None, message: str) -> None:
    """A reviewed change landing on main (text None: the file is removed)."""
    git("pull", "-q", "--ff-only", cwd=who.clone)
    if text is None:
        git("rm", "-q", path, cwd=who.clone)
    else:
        (who.clone / path).write_text(text)
        git("add", path, cwd=who.clone)
    git("commit", "-q", "-m", message, cwd=who.clone)
    git("push", "-q", "origin", "HEAD:main", cwd=who.clone)


@pytest.fixture
def team(tmp_path: Path, bare: Path, loopback: str) -> str:  # noqa: F811
    """The guarded remote with the team repository on main; its git:// URL."""
    init = subprocess.run([sys.executable, "-m", "hz", "state", "install-hook", str(bare)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert init.returncode == 0, init.stderr
    seed = tmp_path / "seed"
    git("init", "-q", str(seed))
    made = subprocess.run([sys.executable, "-m", "hz", "init", "--owner", "@ann"], cwd=seed, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert made.returncode == 0, made.stderr
    (seed / "workflows" / "repo-digest.prose.md").unlink()  # hz init's example: a team contract with no id
    (seed / "workflows" / "hourly.prose.md").write_text(CONTRACT)
    roster = '[team.members]\n"@ann" = ["hz-test@example.invalid"]\n'  # who merges by hand: the pinned identity
    (seed / "hz.toml").write_text(f'[state]\nremote = "{loopback}"\n{roster}')
    owners = subprocess.run([sys.executable, "-m", "hz", "codeowners", "--write"], cwd=seed, capture_output=True,
                            text=True, check=False)  # fmt: skip
    assert owners.returncode == 0, owners.stderr
    git("add", "-A", cwd=seed)
    git("commit", "-q", "-m", "team repository", cwd=seed)
    git("push", "-q", loopback, "HEAD:main", cwd=seed)
    return loopback


def grace(until: str) -> str:
    """The reason a delegate's tick gives for a slot still in its owner's grace period."""
    return f"waiting for the grace period: the owner goes first until {DAY}T{until}:00Z (delegate)"


def test_a_team_day_is_never_refused_by_its_own_hook(tmp_path: Path, team: str, bare: Path) -> None:  # noqa: F811
    ann, bob, carol = (person(tmp_path, team, name) for name in ("ann", "bob", "carol"))
    for someone in (ann, bob, carol):
        someone.adopt(at("07:30"))
        assert someone.hz("workflow", "migrate").returncode == 0

    # 07:31 the created turns: the owner runs hers; carol is no member
    assert ann.tick(at("07:31")) == ["hourly: started -> drafted"]
    assert carol.tick(at("07:33")) == ["hourly: skipped -> not a member of it"]
    # 08:00 the owner on time
    assert ann.tick(at("08:00")) == ["hourly: started -> drafted"]
    assert bob.tick(at("08:01")) == [f"hourly: skipped -> {grace('08:10')}"]
    # 09:00 the owner is offline: the maintainer runs the slot once the grace period passed
    assert bob.tick(at("09:01")) == [f"hourly: skipped -> {grace('09:10')}"]
    assert bob.tick(at("09:11")) == ["hourly: started -> drafted"]
    assert ann.tick(at("09:20")) == ["hourly: skipped -> ran-elsewhere"]
    # 10:00 nobody ran it: an Actions run from a fresh clone and an empty home takes it
    run = actions(tmp_path, team, "123")
    run.adopt(at("09:59"))
    assert run.tick(at("10:11")) == ["hourly: started -> drafted"]
    holders = [line.split()[1:3] for line in run.hz("lease", "list").stdout.splitlines()]
    assert holders == [["actions:123", "actions"]]

    # 10:30 the contract's target moves on main; the pending draft (the 10:00 slot's) went to the old target
    commit_to_main(ann, "workflows/hourly.prose.md", MOVED, "hourly: pages under reports/hourly")
    # 10:45 ann merges that draft: its approval is recorded all the same (decided by main's history)
    ten = branch_name(CONTRACT_ID, "page", f"state:reports/{DAY}-10.md")  # the 10:00 page's own key
    git("fetch", "-q", "origin", f"refs/heads/{ten}", cwd=ann.clone)
    git("merge", "-q", "--no-edit", "FETCH_HEAD", cwd=ann.clone)
    git("push", "-q", "origin", "HEAD:main", cwd=ann.clone)
    # 11:00 every tick runs the version on main (docs/decisions.md, "Team contracts are approved on main")
    assert ann.tick(at("11:00")) == ["hourly: started -> drafted"]
    assets = [line.split()[2].rsplit("@", 1)[1] for line in ann.hz("state", "log").stdout.splitlines()
              if " draft.placed " in line]  # fmt: skip
    assert assets[-2:] == [f"state:reports/{DAY}-10.md", f"state:reports/hourly/{DAY}-11.md"]  # both accepted
    approved = [line.split()[2] for line in ann.hz("state", "log").stdout.splitlines() if " approval.observed " in line]
    assert approved == [f"{LEASE}@v1@{DAY}T10:00Z@state:reports/{DAY}-10.md"]

    for someone in (ann, bob, carol, run):
        someone.clean()
    assert git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/hz/") == f"refs/hz/lease/{LEASE}"


def test_a_receipt_the_hook_refuses_is_set_aside_and_said_and_the_rest_lands(
    tmp_path: Path,
    team: str,
    bare: Path,  # noqa: F811
) -> None:
    """ann's 09:00 turn drafts to the target main had then; her push does not go through, and before it does,
    main is force-pushed back to a history that never had that target: the hook refuses that draft's
    receipt, rightly. It must be said once and kept, not retried forever: the turn's other receipts and
    the lease's release (its turn.finished landed) go in the same push, later ticks are clean. (A version
    of ann's own, approved on her machine, cannot cause it any more: every tick runs main's version,
    docs/decisions.md, "Team contracts are approved on main".)"""
    ann = person(tmp_path, team, "ann")
    ann.adopt(at("07:30"))
    assert ann.tick(at("08:00")) == ["hourly: started -> drafted"]
    commit_to_main(ann, "workflows/hourly.prose.md", MOVED, "hourly: pages under reports/hourly")
    offline(bare, True)
    assert ann.hz("tick", "--now", at("09:00")).returncode == 1  # drafted; hz/state unreachable
    git("push", "-q", "--force", "origin", "HEAD~1:main", cwd=ann.clone)  # main's history loses the target
    offline(bare, False)

    done = ann.hz("tick", "--now", at("09:05"))
    aside = sorted((Path(ann.env["HZ_HOME"]) / "gitstate").glob("*/refused/*.jsonl"))
    assert len(aside) == 1
    refused = [Event.parse_obj_checked(json.loads(line)) for line in aside[0].read_text().splitlines()]
    asset = f"state:reports/hourly/{DAY}-09.md"
    assert [(e.kind, e.data["asset"]) for e in refused] == [("draft.placed", asset)]
    said = aside[0].with_suffix(".txt").read_text().splitlines()
    assert [said[0], said[1].split("  ")[:2], *said[2:]] == [
        "hz: the hz/state lint refuses this push:",
        [f"{path_of(refused[0])}:1:1", "HZS019"],
        f"  asset {asset!r} is not a target of the contract on main",
        "  hint: names on hz/state are the ones the contracts on main declare",
    ]
    assert (done.returncode, done.stderr) == (1, ""), done.stdout
    where = aside[0].parent
    lines = [line for line in done.stdout.splitlines() if not DECIDED.fullmatch(line)]
    assert lines == [
        f"hz/state: error: the remote's hook refused 1 event; set aside in {where}, not sent again:",
        *said,
    ]
    log = ann.hz("state", "log").stdout.splitlines()
    assert [line.split()[1] for line in log if f"{DAY}T09:00Z" in line] == ["turn.started", "turn.finished"]
    # the turn's turn.finished landed (the same push left the refused receipt out): it ended the lease's term
    leases = ann.hz("lease", "list").stdout.split()
    assert leases == [LEASE, *leases[1:2], "owner", "token", "2", "slot", f"{DAY}T09:00:00Z", "released", "at",
                      f"{DAY}T09:00:00Z", "(its", "turn", "finished)"]  # fmt: skip

    # the refused receipt is not sent again; the 08:00 draft is another slot's page (its own key), still pending
    assert ann.tick(at("09:06")) == ["nothing due"]
    ann.clean()


def offline(bare: Path, down: bool) -> None:  # noqa: F811
    """The server takes no hz/state push while `down` (a laptop off the network, as the remote sees it):
    hz's hook stays in place behind a wrapper that refuses a push of hz/state with words that name no event."""
    hooks = bare / "hooks"
    if not (hooks / "pre-receive.hz").exists():
        (hooks / "pre-receive").rename(hooks / "pre-receive.hz")
        wrapper = (
            "#!/bin/sh\nupdates=$(cat)\n"
            'if [ -e "$0.down" ] && printf "%s\\n" "$updates" | grep -q " refs/heads/hz/state$"; then\n'
            '  echo "unreachable" >&2\n  exit 1\nfi\nprintf "%s\\n" "$updates" | exec "$0.hz"\n'
        )
        (hooks / "pre-receive").write_text(wrapper)
        (hooks / "pre-receive").chmod(0o755)
    flag = hooks / "pre-receive.down"
    if down:
        flag.touch()
    else:
        flag.unlink()


def test_a_contract_retired_from_main_keeps_the_receipts_still_queued(tmp_path: Path, team: str, bare: Path) -> None:  # noqa: F811
    """ann's tick ran the 09:00 slot but could not push its receipts; meanwhile the team removed the
    contract from main. The receipts were right when written: they land on her next tick."""
    ann = person(tmp_path, team, "ann")
    ann.adopt(at("07:30"))
    assert ann.tick(at("08:00")) == ["hourly: started -> drafted"]
    offline(bare, True)
    queued = ann.hz("tick", "--now", at("09:00"))
    assert queued.returncode == 1
    said = [line.rstrip() for line in queued.stdout.splitlines()]  # git daemon pads the remote's lines
    assert said[:2] == [
        "hourly: started -> drafted",
        "hz/state: error: the remote refused hz/state: remote: unreachable",
    ]
    commit_to_main(ann, "workflows/hourly.prose.md", None, "hourly: retired")
    offline(bare, False)

    # the queued receipts go out; the agent, still on ann's machine, asks for no new hold (the hook would
    # refuse one on a contract main no longer has): its wake (main's new commit moved its input) is skipped
    assert ann.tick(at("09:05")) == ["hourly: skipped -> not on main"]
    log = ann.hz("state", "log").stdout.splitlines()
    assert [line.split()[1] for line in log if f"{DAY}T09:00Z" in line] == [
        "turn.started",
        "draft.placed",
        "turn.finished",
    ]
    ann.clean()
    assert ann.tick(at("10:00")) == ["hourly: skipped -> not on main"]  # gone from main: never run again


def test_a_new_owner_on_main_counts_before_anyone_adopts_the_new_version(tmp_path: Path, team: str) -> None:
    """Review on main hands the contract from ann to bob (ann stays as a maintainer). The hook judges roles
    by main; so must the members' ticks, whichever version their machines run: bob runs the 09:00 slot
    as owner on time, ann is the delegate now and finds it done. Nobody pulled or migrated anything."""
    ann, bob = (person(tmp_path, team, name) for name in ("ann", "bob"))
    for someone in (ann, bob):
        someone.adopt(at("07:30"))
    assert ann.tick(at("08:00")) == ["hourly: started -> drafted"]
    swapped = CONTRACT.replace('owner: "@ann"', 'owner: "@bob"').replace('["@bob"]', '["@ann"]')
    commit_to_main(ann, "workflows/hourly.prose.md", swapped, "hourly: bob owns it")
    git("reset", "-q", "--hard", "HEAD~1", cwd=ann.clone)  # ann's checkout still has the old contract

    assert bob.tick(at("09:00")) == ["hourly: started -> drafted"]
    holders = [line.split()[1:3] for line in bob.hz("lease", "list").stdout.splitlines()]
    assert [(holder.split("/")[0], role) for holder, role in holders] == [("@bob", "owner")]
    assert ann.tick(at("09:12")) == ["hourly: skipped -> ran-elsewhere"]
    for someone in (ann, bob):
        someone.clean()


def test_a_clone_behind_main_lints_receipts_of_a_version_it_has_not_pulled(tmp_path: Path, team: str) -> None:
    """ann adopts the moved target and drafts to it; bob has not pulled. His tick fetched the remote's main
    for its claim, and his `hz state lint` counts that main's versions: clean, with his own main behind."""
    ann, bob = (person(tmp_path, team, name) for name in ("ann", "bob"))
    for someone in (ann, bob):
        someone.adopt(at("07:30"))
    commit_to_main(ann, "workflows/hourly.prose.md", MOVED, "hourly: pages under reports/hourly")
    ann.adopt(at("08:30"))
    amendment = re.findall(r"hz approve (am-[0-9A-Z]+)", ann.hz("heinzel", "show", "hourly").stdout)
    assert approve_command(io.StringIO(), amendment[0], environ=ann.env, now=moment(at("08:31"))) == 0
    assert ann.tick(at("09:00")) == ["hourly: started -> drafted"]
    assert bob.tick(at("09:11")) == ["hourly: skipped -> ran-elsewhere"]
    assert git("show", "main:workflows/hourly.prose.md", cwd=bob.clone) == CONTRACT.strip()  # behind
    log = bob.hz("state", "log").stdout
    assert f"@v2@{DAY}T09:00Z@state:reports/hourly/{DAY}-09.md" in log
    bob.clean()
