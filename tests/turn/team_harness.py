"""A team on one hooked remote served over loopback `git daemon`: members, Actions runs, and what the remote holds.

Every participant is a separate `hz tick --now` process with its own clone and `$HZ_HOME`: a member keeps
its home from tick to tick (a daemon whose clock the test pins), an Actions run starts from a fresh clone,
an empty home and no git identity every time. The readers look at the bare repository itself, never at a
member's copy, so they see exactly what reached the remote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from tests.turn.test_late_runner import HOURLY, hz
from tests.turn.test_no_git_identity import no_identity
from tests.turn.test_team import git

# The roster a seeded team has unless the test writes its own: only a member's merge approves a draft.
TEAM_ROSTER = (
    '\n[team.members]\n"@rita" = ["rita@example.com", "rita-gh", "rita"]\n'
    '"@priya" = ["priya@example.com", "priya"]\n"@omar" = ["omar@example.com", "omar"]\n'
)

# Variables of the test's own environment that would make a participant someone it is not.
FOREIGN = ("HZ_HANDLE", "HZ_HOME", "HZ_CONFIG_HOME", "HZ_COMPILE_CACHE", "GITHUB_ACTIONS", "GITHUB_RUN_ID")


def hourly(owner: str, maintainers: list[str]) -> str:
    """The hourly team pulse contract with the given owner and maintainers."""
    listed = ", ".join(f'"{m}"' for m in maintainers)
    return HOURLY.replace('owner: "@priya"', f'owner: "{owner}"').replace('["@omar"]', f"[{listed}]")


def bare_remote(tmp_path: Path, name: str = "team.git") -> Path:
    """An empty bare repository at tmp_path/NAME: a team's remote, reached by its path."""
    bare = tmp_path / name
    git("init", "-q", "--bare", str(bare))
    return bare


def push_main(
    tmp_path: Path, bare: Path, files: dict[str, str], *, seed: str = "seed", message: str = "team repo"
) -> Path:
    """`main` on `bare`: `files` (path in the repository -> text) committed in a new repository at
    tmp_path/SEED and pushed, nothing else (no hook, no HEAD); the seed repository."""
    clone = tmp_path / seed
    git("init", "-q", str(clone))
    for name, text in files.items():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text(text)
    git("add", *files, cwd=clone)
    git("commit", "-q", "-m", message, cwd=clone)
    git("push", "-q", str(bare), "HEAD:main", cwd=clone)
    return clone


def seed_remote(
    tmp_path: Path, bare: Path, url: str, contract: str, *, toml: str = "", others: dict[str, str] | None = None
) -> None:
    """`main` on the bare remote: hz.toml's [state] pointing at `url` (then `toml`, more tables), the team
    contract and `others` (more contracts, by file name under workflows/); the hook installed.

    A lease lasts 10 minutes and the grace period is two tick intervals of 5 minutes. Without a
    `[team.members]` table in `toml`, TEAM_ROSTER is the roster (rita reviews, priya and omar run)."""
    git("--git-dir", str(bare), "symbolic-ref", "HEAD", "refs/heads/main")  # so a fresh clone checks out main
    roster = "" if "[team.members]" in toml else TEAM_ROSTER
    files = {
        "hz.toml": f'[state]\nremote = "{url}"\ntick_interval_s = 300\nlease_ttl_s = 600\n{toml}{roster}',
        "workflows/team-pulse.prose.md": contract,
    }
    push_main(tmp_path, bare, files | {f"workflows/{name}": text for name, text in (others or {}).items()})
    installed = hz("state", "install-hook", str(bare), cwd=tmp_path, environ=base_environ(tmp_path / "installer"))
    assert installed.returncode == 0, installed.stderr


def base_environ(home: Path, **extra: str) -> dict[str, str]:
    """The test's environment without anything saying who runs, with `home` as HZ_HOME."""
    kept = {k: v for k, v in os.environ.items() if k not in FOREIGN}
    return {**kept, "HZ_HOME": str(home), **extra}


@dataclass
class Member:
    """A member's machine: a clone of the team repository and a home that lives across ticks."""

    name: str
    clone: Path
    environ: dict[str, str]
    woken: list[tuple[datetime, list[dict[str, Any]]]] = field(default_factory=list)

    @classmethod
    def join(cls, tmp_path: Path, name: str, url: str) -> Member:
        clone = tmp_path / name / "repo"
        git("clone", "-q", url, str(clone))
        return cls(name, clone, base_environ(tmp_path / name / "hz", HZ_HANDLE=f"@{name}"))

    def tick(self, now: datetime, environ: dict[str, str] | None = None) -> list[dict[str, Any]]:
        """One `hz tick --now NOW --json` process; what it woke (also kept in `woken`)."""
        done = hz("tick", "--now", now.isoformat(), "--json", cwd=self.clone, environ=environ or self.environ)
        assert done.returncode == 0, f"{self.name} at {now:%H:%M}: {done.stdout}{done.stderr}"
        woken: list[dict[str, Any]] = json.loads(done.stdout)["woken"]
        self.woken.append((now, woken))
        return woken

    def start(self, now: datetime, environ: dict[str, str]) -> subprocess.Popen[str]:
        """The same tick left running in the background (to stop or kill it mid-turn)."""
        argv = [sys.executable, "-m", "hz", "tick", "--now", now.isoformat(), "--json"]
        return subprocess.Popen(argv, cwd=self.clone, env=environ, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)  # fmt: skip

    def with_runner(self, bin_dir: Path, config: Path) -> dict[str, str]:
        """This member's environment with the `claude` in `bin_dir` as its runner."""
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text('[runners]\ndefault = "claude-code"\n')
        path = f"{bin_dir}{os.pathsep}{self.environ['PATH']}"
        return {**self.environ, "HZ_CONFIG_HOME": str(config), "PATH": path}


def pulse_team(tmp_path: Path, bare: Path, url: str, *names: str, forge: dict[str, str] | None = None) -> list[Member]:
    """The hourly pulse team (owner @priya, maintainer @omar) seeded on `bare`, and the members `names`
    joined, each with the fake forge's environment `forge` when given."""
    seed_remote(tmp_path, bare, url, hourly("@priya", ["@omar"]))
    members = [Member.join(tmp_path, name, url) for name in names]
    for member in members:
        member.environ.update(forge or {})
    return members


def actions_checkout(url: str, clone: Path, branch: str = "main") -> None:
    """The clone the generated tick workflow starts from: what actions/checkout does for a scheduled run (a
    new repository, `origin` with git's default refspec, the default branch's newest commit alone), then
    the workflow's own steps before `hz tick`, run as written (they fetch the branch's history)."""
    from ruamel.yaml import YAML

    from hz.commands.init_files import TICK_WORKFLOW

    git("init", "-q", str(clone))
    git("remote", "add", "origin", url, cwd=clone)
    tracking = f"refs/remotes/origin/{branch}"
    git("fetch", "-q", "--no-tags", "--depth=1", "origin", f"+refs/heads/{branch}:{tracking}", cwd=clone)
    git("checkout", "-q", "-B", branch, tracking, cwd=clone)
    steps = YAML(typ="safe").load(TICK_WORKFLOW)["jobs"]["tick"]["steps"]
    before = steps[: next(i for i, s in enumerate(steps) if s.get("name") == "Install hz")]
    for step in [s for s in before if "run" in s]:
        environ = {**os.environ, **{k: v.replace("${{ github.event.repository.default_branch }}", branch)
                                    for k, v in step.get("env", {}).items()}}  # fmt: skip
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=clone, env=environ, capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert done.returncode == 0, f"{step.get('name')}: {done.stderr}"


def state_lint_run(url: str, clone: Path, environ: dict[str, str], event: str, before: str = "",
                   branch: str = "main") -> subprocess.CompletedProcess[str]:  # fmt: skip
    """A run of the generated state-lint workflow for `event` (push, schedule, workflow_dispatch): the
    checkout actions/checkout makes of the default branch, then every `run:` step as written (hz installed
    already), with the expressions it uses filled in as GitHub would; the lint step's result."""
    from ruamel.yaml import YAML

    from hz.commands.init_files import STATE_LINT_WORKFLOW

    steps = YAML(typ="safe").load(STATE_LINT_WORKFLOW)["jobs"]["lint"]["steps"]
    git("init", "-q", str(clone))
    git("remote", "add", "origin", url, cwd=clone)
    tracking = f"refs/remotes/origin/{branch}"
    if steps[0].get("with", {}).get("fetch-depth") == 0:  # every branch, whole
        git("fetch", "-q", "--no-tags", "origin", "+refs/heads/*:refs/remotes/origin/*", cwd=clone)
    else:  # the default: the branch's newest commit alone
        git("fetch", "-q", "--no-tags", "--depth=1", "origin", f"+refs/heads/{branch}:{tracking}", cwd=clone)
    git("checkout", "-q", "-B", branch, tracking, cwd=clone)
    conditions = {"github.event_name == 'push'": event == "push", "github.event_name != 'push'": event != "push"}
    filled = {"${{ github.event.repository.default_branch }}": branch, "${{ github.event.before }}": before,
              "${{ github.event_name == 'workflow_dispatch' }}": str(event == "workflow_dispatch").lower()}  # fmt: skip
    output = clone.parent / f"{clone.name}-output"
    output.write_text("")
    done = None
    for step in steps:
        if "run" not in step or step.get("name") == "Install hz" or not conditions.get(step.get("if", ""), True):
            continue
        said = dict(line.split("=", 1) for line in output.read_text().splitlines())
        values = {**filled, "${{ steps.fetch.outputs.base }}": said.get("base", "")}
        env = {k: values.get(v, v) for k, v in step.get("env", {}).items()}
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=clone, capture_output=True, text=True,
                              env={**environ, **env, "GITHUB_OUTPUT": str(output)}, check=False)  # fmt: skip
        if step.get("id") == "fetch":
            assert done.returncode == 0, done.stderr
    assert done is not None
    return done


def actions_run(tmp_path: Path, url: str, run_id: int) -> tuple[Path, dict[str, str]]:
    """An Actions-like runner: the tick workflow's checkout (`actions_checkout`), an empty HZ_HOME,
    GITHUB_ACTIONS=true and no git identity; the compiled contracts kept from the test's earlier runs, as
    the workflow's Actions cache keeps them (`HZ_COMPILE_CACHE`)."""
    folder = tmp_path / f"actions-{run_id}"
    clone = folder / "repo"
    actions_checkout(url, clone)
    git("config", "user.useConfigOnly", "true", cwd=clone)
    kept = str(tmp_path / "actions-cache" / "hz-compiled")
    environ = base_environ(folder / "hz", GITHUB_ACTIONS="true", GITHUB_RUN_ID=str(run_id), HZ_COMPILE_CACHE=kept)
    return clone, no_identity(environ, folder / "home")


def fresh_clone(tmp_path: Path, url: str, name: str) -> tuple[Path, dict[str, str]]:
    """A clone nobody ticked in, with its own empty home: an outsider's view of the remote."""
    clone = tmp_path / name / "repo"
    git("clone", "-q", url, str(clone))
    return clone, base_environ(tmp_path / name / "hz")


def state_events(bare: Path) -> list[dict[str, Any]]:
    """Every event on the remote's hz/state (none before anything wrote it)."""
    if not git("--git-dir", str(bare), "for-each-ref", "refs/heads/hz/state"):
        return []
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    return [json.loads(git("--git-dir", str(bare), "show", f"hz/state:{f}")) for f in files]


def key_branch(contract: str, output: str, asset: str) -> str:
    """The draft branch of a draft whose contract keeps the default idempotency key: its asset is its key."""
    from hz.review.branches import branch_name

    return branch_name(contract, output, asset)


def draft_branches(bare: Path) -> list[str]:
    """The draft branches on the remote, `refs/heads/hz/draft/…`."""
    listed = git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/heads/hz/draft/")
    return listed.splitlines()


def lease_log(clone: Path, environ: dict[str, str], lease: str) -> list[dict[str, Any]]:
    """The lease's chain read with `hz lease log ID --json`, oldest first."""
    shown = hz("lease", "log", lease, "--json", "--limit", "10000", cwd=clone, environ=environ)
    assert (shown.returncode, shown.stderr) == (0, ""), shown.stdout
    chain: list[dict[str, Any]] = json.loads(shown.stdout)
    return chain[::-1]


@dataclass
class Reviewer:
    """A person reviewing on their own clone (no hz), committing as `name <email>` (the test's pinned git
    identity is overridden for their commands alone)."""

    clone: Path
    name: str
    email: str

    @classmethod
    def join(cls, tmp_path: Path, url: str, name: str, email: str) -> Reviewer:
        clone = tmp_path / f"reviewer-{name.lower()}"
        git("clone", "-q", url, str(clone))
        return cls(clone, name, email)

    def git(self, *args: str) -> str:
        who = {"GIT_AUTHOR_NAME": self.name, "GIT_AUTHOR_EMAIL": self.email}
        who.update(GIT_COMMITTER_NAME=self.name, GIT_COMMITTER_EMAIL=self.email)
        done = subprocess.run(["git", *args], cwd=self.clone, env={**os.environ, **who}, capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert done.returncode == 0, f"git {args}: {done.stderr}"
        return done.stdout

    def squash_merge(self, branch: str, edit: Any = None, message: str = "Merge the draft", delete: bool = True) -> str:
        """Squash-merge `branch` into main (after `edit(clone)` changed the files), push main and delete the
        branch on the remote, as a forge's squash merge does; the new main commit."""
        self.git("fetch", "-q", "origin")
        self.git("checkout", "-q", "main")
        self.git("merge", "-q", "--ff-only", "origin/main")
        self.git("merge", "-q", "--squash", f"origin/{branch}")
        if edit is not None:
            edit(self.clone)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        self.git("push", "-q", "origin", "main")
        if delete:
            self.git("push", "-q", "origin", "--delete", branch)
        return self.git("rev-parse", "HEAD").strip()
