"""A runner that arrives after a slot ran elsewhere takes nothing, whatever its role (issue 10, findings 1-2).

Two members, each a separate `hz tick --now` process with its own clone and `$HZ_HOME`, share one bare
remote with the pre-receive hook. The first runner's lease has expired by the time the second ticks, so
only the slot's receipt on `hz/state` can tell the second that the slot is done: it must not run it
again (one `turn.started`, one lease token for the slot), and its own session records the slot as run
elsewhere, so it is never tried again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.turn.test_team import git, member

CONTRACT_ID = "01KC3333333333333333333333"
LEASE = f"hz-{CONTRACT_ID}"
SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)
KEY = f"{LEASE}@2026-10-26T11:00Z"
HOURLY = f"""---
name: team-pulse
kind: responsibility
id: {CONTRACT_ID}
description: The team's hourly pulse, drafted on a branch for review.
hz:
  schema: 1
  title: Team pulse
  owner: "@priya"
  maintainers: ["@omar"]
  scope: team
  schedule: "0 * * * *"
  outputs:
    pulse:
      target: "state:pulse/{{slot:%Y%m%dT%H%M}}.md"
      facets: [summary]
---

# Team pulse

### Goal

The team's pulse is drafted every hour.

### Maintains

- `pulse`: the pulse.

#### summary

Material: what moved.

### Done when

- [ ] the hour is covered
"""


def hz(*argv: str, cwd: Path, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hz", *argv], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def tick(clone: Path, environ: dict[str, str], now: datetime) -> list[tuple[str, Any]]:
    """One `hz tick --now … --json` process: (action, reason or disposition) of what it woke."""
    done = hz("tick", "--now", now.isoformat(), "--json", cwd=clone, environ=environ)
    assert done.returncode == 0, done.stdout + done.stderr
    return [(e["action"], e.get("reason") or e.get("disposition")) for e in json.loads(done.stdout)["woken"]]


def team(tmp_path: Path) -> tuple[Path, tuple[Path, dict[str, str]], tuple[Path, dict[str, str]]]:
    """The bare remote (hook installed), priya (owner) and omar (delegate), both adopted at 10:50."""
    bare = tmp_path / "team.git"
    git("init", "-q", "--bare", str(bare))
    seed = tmp_path / "seed"
    git("init", "-q", str(seed))
    settings = "tick_interval_s = 300\nlease_ttl_s = 600\n"  # grace 10 min; a lease lasts 10 min
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n{settings}')
    (seed / "workflows").mkdir()
    (seed / "workflows" / "team-pulse.prose.md").write_text(HOURLY)  # the hook learns the roles from main
    git("add", "hz.toml", "workflows", cwd=seed)
    git("commit", "-q", "-m", "team repo", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    adopted = SLOT - timedelta(minutes=10)
    priya = member(tmp_path, "priya", bare, contract=HOURLY, adopted=adopted)
    omar = member(tmp_path, "omar", bare, contract=HOURLY, adopted=adopted)
    installed = hz("state", "install-hook", str(bare), cwd=tmp_path, environ=priya[1])
    assert installed.returncode == 0, installed.stderr
    return bare, priya, omar


def started(bare: Path) -> list[dict[str, Any]]:
    """Every `turn.started` on the remote's hz/state."""
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    found = [f for f in files if f.rsplit("/", 1)[-1].startswith("turn.started-")]
    return [json.loads(git("--git-dir", str(bare), "show", f"hz/state:{f}")) for f in found]


def lease_chain(bare: Path) -> list[dict[str, Any]]:
    commits = git("--git-dir", str(bare), "rev-list", f"refs/hz/lease/{LEASE}").splitlines()
    return [json.loads(git("--git-dir", str(bare), "show", f"{c}:lease.json")) for c in reversed(commits)]


def tokens_for_the_slot(bare: Path) -> set[int]:
    return {r["token"] for r in lease_chain(bare) if r["slot"] == "2026-10-26T11:00:00Z"}


def drafts(bare: Path) -> list[str]:
    return git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/heads/hz/draft/").splitlines()


def skips(environ: dict[str, str]) -> list[tuple[list[str], str]]:
    """(keys, reason) of every turn.skipped in the member's local sessions."""
    from hz.session.spine import read_spine

    found = []
    for spine in Path(environ["HZ_HOME"]).glob("heinzel/*/session.jsonl"):
        for event in read_spine(spine).events:
            if event.kind == "turn.skipped":
                found.append((event.data["keys"], event.data["reason"]))
    return found


def test_a_delegate_after_the_owners_lease_expired_does_not_run_the_slot_again(tmp_path: Path) -> None:
    bare, (priya, priya_env), (omar, omar_env) = team(tmp_path)
    assert tick(priya, priya_env, SLOT + timedelta(seconds=30)) == [("started", "drafted")]
    # 40 minutes on: past the grace period, and past the owner's lease (10 min) and its skew margin
    late = SLOT + timedelta(minutes=40)
    assert lease_chain(bare)[-1]["expires"] < (late - timedelta(seconds=31)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert tick(omar, omar_env, late) == [("skipped", "ran-elsewhere")]
    assert [e["key"] for e in started(bare)] == [KEY]
    assert {r["role"] for r in lease_chain(bare)} == {"owner"}  # the delegate took no lease
    assert tokens_for_the_slot(bare) == {1}
    assert len(drafts(bare)) == 1
    local = [reason for keys, reason in skips(omar_env) if keys[0].endswith("@2026-10-26T11:00Z")]
    assert local == ["ran-elsewhere"]
    # settled: the next tick of the delegate does not even look at the slot again
    assert tick(omar, omar_env, late + timedelta(minutes=5)) == []
    assert tokens_for_the_slot(bare) == {1}


def test_the_owner_arriving_after_a_delegate_ran_the_slot_does_not_run_it_again(tmp_path: Path) -> None:
    bare, (priya, priya_env), (omar, omar_env) = team(tmp_path)
    # the owner is offline at 11:00; the delegate takes the slot once the grace period is over
    assert tick(omar, omar_env, SLOT + timedelta(minutes=11)) == [("started", "drafted")]
    assert [r["role"] for r in lease_chain(bare)] == ["delegate"]  # taken; its turn's end on hz/state ends it
    # the owner comes back after the delegate's lease expired: the slot is done, whoever ran it
    assert tick(priya, priya_env, SLOT + timedelta(minutes=45)) == [("skipped", "ran-elsewhere")]
    assert [e["key"] for e in started(bare)] == [KEY]
    assert [e["data"]["role"] for e in started(bare)] == ["delegate"]
    assert tokens_for_the_slot(bare) == {1}
    assert len(drafts(bare)) == 1
    local = [reason for keys, reason in skips(priya_env) if keys[0].endswith("@2026-10-26T11:00Z")]
    assert local == ["ran-elsewhere"]
    lint = hz("state", "lint", cwd=priya, environ=priya_env)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_every_role_finds_the_slot_done_before_it_takes_the_lease(tmp_path: Path) -> None:
    """`hz lease acquire`, the owner's and an Actions run's, after the delegate's lease expired."""
    bare, (priya, priya_env), (omar, omar_env) = team(tmp_path)
    assert tick(omar, omar_env, SLOT + timedelta(minutes=11)) == [("started", "drafted")]
    actions = {**omar_env, "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "4242"}
    for clone, environ in ((priya, priya_env), (omar, actions)):
        for slot in ("2026-10-26T11:00Z", "2026-10-26T11:00:00Z"):  # a key's spelling or a lease's
            taken = hz("lease", "acquire", LEASE, "--slot", slot, cwd=clone, environ=environ)  # the clock: today
            assert (taken.returncode, taken.stdout) == (1, f"slot 2026-10-26T11:00:00Z of {LEASE} is done already\n")
    assert tokens_for_the_slot(bare) == {1}
