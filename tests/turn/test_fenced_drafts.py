"""A holder stopped past its lease places nothing once another member ran the slot (issue 10, finding 3).

The owner runs `hz tick` as a process whose think step (a scripted `claude` on its PATH) waits for a
file; the test stops that process with SIGSTOP while it thinks. With the clocks pinned by `--now`, the
delegate ticks after the owner's lease expired and past the grace period, takes the slot and runs it.
Then the owner is continued with SIGCONT: its receipts and its draft branch must both stay off the
remote (the bare remote has hz's pre-receive hook), `hz state lint` stays clean, and its tick says the
lease was fenced and names the branch it withheld.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from tests.turn.test_late_runner import KEY, LEASE, SLOT, drafts, hz, lease_chain, started, team, tick
from tests.turn.test_team import git

THINKING = {
    "kind": "draft",
    "report": "the owner's pulse",
    "drafts": [{"output": "pulse", "facet": "summary", "text": "The owner's pulse, late."}],
    "lessons": [],
    "amendment": None,
    "question": None,
    "summary": None,
}
ANSWER = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "num_turns": 1,
    "result": "",
    "total_cost_usd": 0.0,
    "usage": {"input_tokens": 10, "output_tokens": 20},
    "structured_output": THINKING,
}


def slow_claude(folder: Path) -> Path:
    """A `claude` that says it is thinking (a `ready` file), then waits for `go` before it answers.

    It gives up when the `hz` that started it is gone (a test killed it) or after five minutes, so a
    test never leaves it waiting behind."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "claude"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, sys, time\n"
        "sys.stdin.read()\n"
        "parent, deadline = os.getppid(), time.monotonic() + 300\n"
        f"open({str(folder / 'ready')!r}, 'w').close()\n"
        f"while not os.path.exists({str(folder / 'go')!r}):\n"
        "    if os.getppid() != parent or time.monotonic() > deadline:\n"
        "        sys.exit(1)\n"
        "    time.sleep(0.02)\n"
        f"print({json.dumps(json.dumps(ANSWER))})\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return bin_dir


def wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"timed out waiting for {path}"
        time.sleep(0.02)


def on_state(bare: Path) -> list[dict[str, Any]]:
    files = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    return [json.loads(git("--git-dir", str(bare), "show", f"hz/state:{f}")) for f in files]


def test_a_holder_stopped_past_its_lease_places_no_receipt_and_no_branch(tmp_path: Path) -> None:
    bare, (priya, priya_env), (omar, omar_env) = team(tmp_path)
    folder = tmp_path / "think"
    config = tmp_path / "priya" / "config"
    config.mkdir()
    (config / "config.toml").write_text('[runners]\ndefault = "claude-code"\n')
    path = f"{slow_claude(folder)}{os.pathsep}{priya_env['PATH']}"
    owner_env = {**priya_env, "HZ_CONFIG_HOME": str(config), "PATH": path}

    owner = subprocess.Popen([sys.executable, "-m", "hz", "tick", "--now", (SLOT + timedelta(seconds=30)).isoformat(),
                              "--json"], cwd=priya, env=owner_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)  # fmt: skip
    try:
        wait_for(folder / "ready", owner)  # the owner holds the lease (token 1) and is thinking
        os.kill(owner.pid, signal.SIGSTOP)
        assert [(r["holder"].split("/")[0], r["token"]) for r in lease_chain(bare)] == [("@priya", 1)]
        # 20 minutes on: the owner's 10-minute lease is over and so is the grace period
        assert tick(omar, omar_env, SLOT + timedelta(minutes=20)) == [("started", "drafted")]
        ran = remote_refs(bare)
    finally:
        os.kill(owner.pid, signal.SIGCONT)
    (folder / "go").touch()
    out, err = owner.communicate(timeout=120)

    assert owner.returncode == 0, out + err
    woken = json.loads(out)["woken"]
    # issue 19, finding 12: it said `started -> drafted` and `fenced`, and left a pending draft here
    assert [(e["action"], e.get("disposition")) for e in woken] == [("fenced", None)]
    listed = json.loads(hz("drafts", "--json", cwd=priya, environ=priya_env).stdout)
    assert [row for row in listed if row.get("scope") != "team"] == []  # the team's (omar's) draft only
    branch = git("branch", "--list", "hz/draft/*", "--format=%(refname:short)", cwd=priya).strip()
    assert woken[0] == {"agent": LEASE, "action": "fenced",
                        "reason": f"the lease was taken over; its draft branch {branch} was not pushed"}  # fmt: skip
    assert remote_refs(bare) == ran  # not one ref moved: no branch, no receipt, no renewal of the owner's
    assert [(r["holder"].split("/")[0], r["token"]) for r in lease_chain(bare)][-1] == ("@omar", 2)
    assert {e["token"] for e in on_state(bare)} == {2}
    assert [e["key"] for e in started(bare)] == [KEY]
    assert len(drafts(bare)) == 1  # the delegate's; the owner's branch stays on the owner's machine
    assert (
        git("--git-dir", str(bare), "rev-parse", drafts(bare)[0]).strip() != git("rev-parse", branch, cwd=priya).strip()
    )
    lint = hz("state", "lint", cwd=priya, environ=priya_env)
    assert (lint.returncode, lint.stderr) == (0, ""), lint.stdout

    # the owner's machine marks its branch as never placed (the next holder drafted its own), and its
    # next tick pushes nothing of the fenced term: the outbox is empty, the branch withheld
    marks = git("for-each-ref", "--format=%(objectname) %(refname)", "refs/hz/sync/", cwd=priya).splitlines()
    commit = git("rev-parse", branch, cwd=priya).strip()
    assert [m.split(" ")[0] for m in marks if f"/withheld/heads/{branch}" in m] == [commit]
    assert tick(priya, priya_env, SLOT + timedelta(minutes=25)) == []
    assert remote_refs(bare) == ran


def remote_refs(bare: Path) -> dict[str, str]:
    listed = git("ls-remote", str(bare)).splitlines()
    return {ref: commit for commit, ref in (line.split("\t") for line in listed)}


def test_a_fenced_wake_says_fenced_once_and_leaves_nothing_pending(tmp_path: Path) -> None:
    """The owner's `hz heinzel wake` holds the lease and thinks; the delegate's tick 20 minutes on takes the
    lease over and runs the slot. The wake's push is then fenced: it says `fenced` once (not `started ->
    drafted` too), and its draft, which the team never received, does not wait in the owner's `hz drafts`."""
    bare, (priya, priya_env), (omar, omar_env) = team(tmp_path)
    folder = tmp_path / "think"
    config = tmp_path / "priya" / "config"
    config.mkdir()
    (config / "config.toml").write_text('[runners]\ndefault = "claude-code"\n')
    path = f"{slow_claude(folder)}{os.pathsep}{priya_env['PATH']}"
    owner_env = {**priya_env, "HZ_CONFIG_HOME": str(config), "PATH": path}
    name = git("--git-dir", str(bare), "show", "main:workflows/team-pulse.prose.md").split("name: ", 1)[1].split()[0]
    woke = subprocess.Popen([sys.executable, "-m", "hz", "heinzel", "wake", name, "--now",
                             (SLOT + timedelta(seconds=30)).isoformat()], cwd=priya, env=owner_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        wait_for(folder / "ready", woke)  # the wake holds the lease (token 1) and is thinking
        assert tick(omar, omar_env, SLOT + timedelta(minutes=20)) == [("started", "drafted")]
        ran = remote_refs(bare)
    finally:
        (folder / "go").touch()
    out, err = woke.communicate(timeout=120)
    assert (woke.returncode, err) == (0, ""), out
    assert [line.split(":", 1)[1].strip().split()[0] for line in out.splitlines()] == ["fenced"], out
    listed = json.loads(hz("drafts", "--json", cwd=priya, environ=priya_env).stdout)
    assert [row for row in listed if row.get("scope") != "team"] == []  # the team's (omar's) draft only
    assert remote_refs(bare) == ran
