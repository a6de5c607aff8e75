"""A stateless run takes a team slot left undone (issue 10, finding 6 and "Stateless runs work").

An Actions run starts from a fresh clone and an empty `$HZ_HOME`, with no git identity. Its `hz tick`
adopts the team contracts on `main` by itself (review on main is their approval), learns from `hz/state`
which slots are done, and runs the latest slot left undone past the grace period, once. Every runner
here is a separate `hz tick --now` process against one bare remote with the pre-receive hook; the
contract's owner is offline throughout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.gitstate.lint_since import CUT, CUT_HINT
from hz.session.store import Store
from hz.tick.team_adoption import adopt_new_team_contracts
from tests.turn.team_harness import actions_run, bare_remote, push_main
from tests.turn.test_idle import HEAVY
from tests.turn.test_late_runner import CONTRACT_ID, HOURLY, KEY, hz, lease_chain, tick
from tests.turn.test_no_git_identity import no_identity
from tests.turn.test_team import git

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)
PAST_GRACE = SLOT + timedelta(minutes=12)  # grace: two tick intervals of 5 minutes


def remote(tmp_path: Path) -> Path:
    """The team's bare remote with the hook, main holding hz.toml's [state] and the hourly team contract."""
    bare = bare_remote(tmp_path)
    state = f'[state]\nremote = "{bare}"\ntick_interval_s = 300\nlease_ttl_s = 600\n'
    push_main(tmp_path, bare, {"hz.toml": state, "workflows/team-pulse.prose.md": HOURLY})
    installer = {**os.environ, "HZ_HOME": str(tmp_path / "installer")}
    installed = hz("state", "install-hook", str(bare), cwd=tmp_path, environ=installer)
    assert installed.returncode == 0, installed.stderr
    return bare


def fresh(tmp_path: Path, bare: Path, name: str, **extra: str) -> tuple[Path, dict[str, str]]:
    """A fresh clone and an empty HZ_HOME, no handle and no git identity unless `extra` gives them."""
    clone = tmp_path / name / "repo"
    git("clone", "-q", str(bare), str(clone))
    git("config", "user.useConfigOnly", "true", cwd=clone)
    base = {k: v for k, v in os.environ.items() if k not in ("HZ_HANDLE", "GITHUB_ACTIONS", "GITHUB_RUN_ID")}
    environ = no_identity({**base, "HZ_HOME": str(tmp_path / name / "hz"), **extra}, tmp_path / name / "home")
    return clone, environ


def actions(tmp_path: Path, bare: Path, run_id: int) -> tuple[Path, dict[str, str]]:
    """A run of the tick workflow: its checkout of main (hz/state and the leases are hz tick's to fetch)."""
    return actions_run(tmp_path, str(bare), run_id)


# One tick in-process, then the heavy libraries it loaded (an idle tick loads none).
PROBE = """
import json, sys
from hz.cli import run
code = run(["tick", "--now", sys.argv[1]])
print(json.dumps({"code": code, "heavy": sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2:]))}))
"""


def lint_whole(clone: Path, environ: dict[str, str]) -> tuple[int, str]:
    """`hz state lint` in a run's clone: (exit code, stderr). A run that found hz/state holds it and the
    leases from their tips on, and the lint there is refused as it says, until the history its hint names
    is fetched (a run that created hz/state has all of it)."""
    if (clone / ".git" / "shallow").exists():
        cut = hz("state", "lint", cwd=clone, environ=environ)
        assert (cut.returncode, cut.stdout, cut.stderr) == (1, "", f"error: hz/state: {CUT}\n  hint: {CUT_HINT}\n")
        fetch = CUT_HINT.partition("fetch it here: ")[2]
        subprocess.run(fetch, shell=True, cwd=clone, env=environ, capture_output=True, check=True)
    lint = hz("state", "lint", cwd=clone, environ=environ)
    return lint.returncode, lint.stderr


def finished(bare: Path) -> list[dict[str, Any]]:
    """Every `turn.finished` on the remote's hz/state (none before anything wrote it)."""
    if not git("--git-dir", str(bare), "for-each-ref", "refs/heads/hz/state"):
        return []
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    found = [f for f in files if f.rsplit("/", 1)[-1].startswith("turn.finished-")]
    return [json.loads(git("--git-dir", str(bare), "show", f"hz/state:{f}")) for f in found]


def test_an_actions_run_past_the_grace_period_runs_the_undone_slot_once(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    clone, environ = actions(tmp_path, bare, 123)
    assert tick(clone, environ, PAST_GRACE) == [("started", "drafted")]
    ends = finished(bare)
    assert [e["key"] for e in ends] == [KEY]
    assert [(r["holder"], r["role"]) for r in lease_chain(bare)] == [("actions:123", "actions")]  # no release
    assert {r["slot"] for r in lease_chain(bare)} == {"2026-10-26T11:00:00Z"}
    assert lint_whole(clone, environ) == (0, "")

    # another fresh run at the same moment finds the slot done and takes nothing
    again, again_env = actions(tmp_path, bare, 124)
    assert tick(again, again_env, PAST_GRACE) == [("skipped", "ran-elsewhere")]
    assert [e["key"] for e in finished(bare)] == [KEY]
    assert len(lease_chain(bare)) == 1
    # settled there: that home's next tick is idle, and light (its agent never ran a turn, yet is not new)
    probe = [sys.executable, "-c", PROBE, (PAST_GRACE + timedelta(minutes=1)).isoformat(), *HEAVY]
    idle = subprocess.run(probe, cwd=again, env=again_env, capture_output=True, text=True, timeout=60, check=True)
    assert idle.stdout.splitlines() == ["nothing due", json.dumps({"code": 0, "heavy": []})]


def test_an_actions_run_within_the_grace_period_waits_for_the_owner(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    clone, environ = actions(tmp_path, bare, 123)
    waiting = "waiting for the grace period: the owner goes first until 2026-10-26T11:10:00Z"
    assert tick(clone, environ, SLOT + timedelta(minutes=3)) == [("skipped", f"{waiting} (actions)")]
    assert finished(bare) == []
    assert git("--git-dir", str(bare), "for-each-ref", "refs/hz/lease/") == ""


def test_a_fresh_member_clone_takes_the_undone_slot_as_delegate_after_the_grace_period(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    clone, environ = fresh(tmp_path, bare, "omar", HZ_HANDLE="@omar")
    waiting = "waiting for the grace period: the owner goes first until 2026-10-26T11:10:00Z"
    assert tick(clone, environ, SLOT + timedelta(minutes=3)) == [("skipped", f"{waiting} (delegate)")]
    assert tick(clone, environ, PAST_GRACE) == [("started", "drafted")]
    assert [e["key"] for e in finished(bare)] == [KEY]
    assert {(r["holder"].split("/", 1)[0], r["role"]) for r in lease_chain(bare)} == {("@omar", "delegate")}
    # settled: a later tick of the same member does not run the slot again
    assert tick(clone, environ, PAST_GRACE + timedelta(minutes=5)) == []
    assert [e["key"] for e in finished(bare)] == [KEY]


def test_each_hourly_slot_runs_once_across_stateless_runs(tmp_path: Path) -> None:
    """Runs an hour apart, each from nothing: each takes its own hour's slot, and the state stays clean."""
    bare = remote(tmp_path)
    for run_id, hour in ((123, 11), (125, 12), (126, 12), (127, 13)):
        clone, environ = actions(tmp_path, bare, run_id)
        now = datetime(2026, 10, 26, hour, 12, tzinfo=UTC)
        # 126 comes after 125 drafted hour 12: the slot ran elsewhere. Each hour's page is its own file, so its
        # own idempotency key and branch: hour 11's draft waits beside hour 12's, superseded by nothing
        expected = [("skipped", "ran-elsewhere")] if run_id == 126 else [("started", "drafted")]
        assert tick(clone, environ, now) == expected
    hours = [e["key"].rsplit("@", 1)[1] for e in finished(bare)]
    assert sorted(hours) == ["2026-10-26T11:00Z", "2026-10-26T12:00Z", "2026-10-26T13:00Z"]
    holders = {r["slot"]: r["holder"] for r in lease_chain(bare)}
    assert holders == {
        "2026-10-26T11:00:00Z": "actions:123",
        "2026-10-26T12:00:00Z": "actions:125",
        "2026-10-26T13:00:00Z": "actions:127",
    }
    tokens = [r["token"] for r in lease_chain(bare)]
    assert tokens == sorted(tokens)
    assert lint_whole(clone, environ) == (0, "")


PERSONAL = HOURLY.replace("name: team-pulse", "name: my-pulse").replace("scope: team", "scope: personal")


def adopted(root: Path, home: Path) -> list[tuple[str, str]]:
    """One tick's adoption step on `root` for the home `home`: (namespace, name) of every agent after it."""
    environ = {**os.environ, "HZ_HOME": str(home), "HZ_HANDLE": "@omar"}
    with Store.from_environ(environ) as store:
        assert adopt_new_team_contracts(store, root, environ, SLOT) == []
        return sorted((str(r["namespace"]), str(r["name"])) for r in store.index.db.execute("SELECT * FROM agents"))


def test_only_team_contracts_with_an_id_are_adopted_and_only_where_team_state_is_kept(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "workflows").mkdir(parents=True)
    (root / "workflows" / "team-pulse.prose.md").write_text(HOURLY)
    (root / "workflows" / "my-pulse.prose.md").write_text(PERSONAL)
    (root / "workflows" / "no-id.prose.md").write_text(HOURLY.replace(f"id: {CONTRACT_ID}\n", "").replace(
        "name: team-pulse", "name: no-id"))  # fmt: skip
    (root / "hz.toml").write_text("[project]\n")
    home = tmp_path / "hz"
    assert adopted(root, home) == []  # no [state]: a team contract is its owner's, adopted by hand
    (root / "hz.toml").write_text(f'[state]\nremote = "{tmp_path / "team.git"}"\n')
    assert adopted(root, home) == [("team", "team-pulse")]
    assert adopted(root, home) == [("team", "team-pulse")]  # idempotent
    second = HOURLY.replace("name: team-pulse", "name: team-digest").replace(CONTRACT_ID, "01KC4444444444444444444444")
    (root / "workflows" / "team-digest.prose.md").write_text(second)  # a later pull brings another one
    assert adopted(root, home) == [("team", "team-digest"), ("team", "team-pulse")]


def test_an_actions_run_that_adopted_by_hz_workflow_migrate_takes_the_undone_slot_too(tmp_path: Path) -> None:
    bare = remote(tmp_path)
    clone, environ = actions(tmp_path, bare, 123)
    migrated = hz("workflow", "migrate", cwd=clone, environ=environ)
    assert migrated.returncode == 0, migrated.stderr
    assert tick(clone, environ, PAST_GRACE) == [("started", "drafted")]
    assert [e["key"] for e in finished(bare)] == [KEY]
