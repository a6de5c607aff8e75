"""A holder killed mid-turn leaves no slot undone, and a lease won in a tick is won for its own slot only
(issue 10, "each slot once, whoever runs it").

The owner runs `hz tick` as a process whose think step (a scripted `claude` on its PATH) waits for a
file, and is killed with SIGKILL while it thinks: it holds the lease and will never finish. The delegate
ticks while that lease is still live (past the grace period: it is held, not early), which must run
nothing and settle nothing, then again once the lease expired: it takes the slot over and runs it, once.
Each member is a separate `hz tick --now` process with its own clone and `$HZ_HOME`; the bare remote has
hz's pre-receive hook.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from hz.session.store import Store
from hz.tick.team import Team
from hz.tick.team_claim import claim
from hz.turn.agents import load_plan
from tests.turn.test_fenced_drafts import ANSWER, on_state, remote_refs, slow_claude, wait_for
from tests.turn.test_late_runner import KEY, SLOT, drafts, hz, lease_chain, skips, started, team, tick
from tests.turn.test_team import git


def counting_claude(folder: Path) -> Path:
    """A `claude` that answers at once and leaves one line in `calls` per model call."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "claude"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "sys.stdin.read()\n"
        f"with open({str(folder / 'calls')!r}, 'a') as calls:\n"
        "    calls.write('call\\n')\n"
        f"print({json.dumps(json.dumps(ANSWER))})\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return bin_dir


def with_claude(environ: dict[str, str], bin_dir: Path, config: Path) -> dict[str, str]:
    """The member's environment with `claude` on PATH as its runner."""
    config.mkdir(parents=True)
    (config / "config.toml").write_text('[runners]\ndefault = "claude-code"\n')
    return {**environ, "HZ_CONFIG_HOME": str(config), "PATH": f"{bin_dir}{os.pathsep}{environ['PATH']}"}


def calls(folder: Path) -> int:
    path = folder / "calls"
    return len(path.read_text().splitlines()) if path.exists() else 0


def finished(bare: Path, key: str) -> list[dict[str, Any]]:
    return [e for e in on_state(bare) if e["kind"] == "turn.finished" and e["key"] == key]


def test_a_holder_killed_mid_turn_leaves_the_slot_to_the_next_member_once_its_lease_expired(tmp_path: Path) -> None:
    bare, (priya, priya_env), (omar, omar_env) = team(tmp_path)
    owner_env = with_claude(priya_env, slow_claude(tmp_path / "think"), tmp_path / "priya" / "config")
    omar_model = tmp_path / "omar-model"
    delegate_env = with_claude(omar_env, counting_claude(omar_model), tmp_path / "omar" / "config")

    owner = subprocess.Popen([sys.executable, "-m", "hz", "tick", "--now", (SLOT + timedelta(seconds=30)).isoformat(),
                              "--json"], cwd=priya, env=owner_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)  # fmt: skip
    try:
        wait_for(tmp_path / "think" / "ready", owner)  # the owner holds the lease (token 1) and is thinking
    finally:
        os.kill(owner.pid, signal.SIGKILL)
        owner.communicate(timeout=60)
    assert owner.returncode == -signal.SIGKILL
    [held] = lease_chain(bare)
    assert (held["holder"].split("/")[0], held["token"], held["slot"]) == ("@priya", 1, "2026-10-26T11:00:00Z")
    assert held["expires"] == "2026-10-26T11:10:30Z"
    assert git("ls-remote", str(bare), "hz/state") == ""  # killed before its one push: no receipt of the turn

    # 11:10:15: the grace period (10 min) is over, the dead owner's lease is not (11:10:30, plus 30 s skew)
    assert tick(omar, delegate_env, SLOT + timedelta(minutes=10, seconds=15)) == [
        ("skipped", f"held by {held['holder']} until {held['expires']} (slot {held['slot']})")
    ]
    assert calls(omar_model) == 0  # a pending wake costs no model call
    assert [reason for keys, reason in skips(omar_env) if keys[0].endswith("@2026-10-26T11:00Z")] == []  # unsettled
    assert lease_chain(bare) == [held]

    # 11:12: the lease expired; the delegate's next tick takes it over and runs the slot
    assert tick(omar, delegate_env, SLOT + timedelta(minutes=12)) == [("started", "drafted")]
    assert calls(omar_model) == 1
    chain = lease_chain(bare)
    tokens = [r["token"] for r in chain]
    assert tokens == sorted(tokens) and tokens[0] == 1 and tokens[-1] == 2  # a takeover, then its renewal
    assert [(r["holder"].split("/")[0], r["role"]) for r in chain[1:]] == [("@omar", "delegate")] * (len(chain) - 1)
    assert [e["key"] for e in started(bare)] == [KEY]
    assert [(e["token"], e["data"]["role"]) for e in started(bare)] == [(2, "delegate")]
    assert len(finished(bare, KEY)) == 1
    assert len(drafts(bare)) == 1

    # settled now: the delegate's next tick does not look at the slot again
    assert tick(omar, delegate_env, SLOT + timedelta(minutes=17)) == []
    assert calls(omar_model) == 1
    assert len(finished(bare, KEY)) == 1
    lint = hz("state", "lint", cwd=omar, environ=omar_env)
    assert (lint.returncode, lint.stderr) == (0, ""), lint.stdout

    # the owner's machine comes back inside the turn's timeout: its open turn finds the slot done and is
    # abandoned without a model call; nothing of it reaches the remote
    ran = remote_refs(bare)
    (tmp_path / "think" / "ready").unlink()
    (tmp_path / "think" / "go").touch()
    assert tick(priya, owner_env, SLOT + timedelta(minutes=13)) == [("resumed", "ran-elsewhere")]
    assert not (tmp_path / "think" / "ready").exists()  # the owner's claude was not asked again
    assert remote_refs(bare) == ran
    assert tick(priya, owner_env, SLOT + timedelta(minutes=14)) == []


def test_a_holder_killed_mid_turn_that_comes_back_in_time_finishes_the_slot_and_says_so(tmp_path: Path) -> None:
    """Restarted before its lease expired, the owner resumes its own term (the same token) and its
    receipts go out: the delegate, later, finds the slot done instead of running it a second time."""
    bare, (priya, priya_env), (omar, omar_env) = team(tmp_path)
    owner_env = with_claude(priya_env, slow_claude(tmp_path / "think"), tmp_path / "priya" / "config")
    owner = subprocess.Popen([sys.executable, "-m", "hz", "tick", "--now", (SLOT + timedelta(seconds=30)).isoformat(),
                              "--json"], cwd=priya, env=owner_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)  # fmt: skip
    try:
        wait_for(tmp_path / "think" / "ready", owner)
    finally:
        os.kill(owner.pid, signal.SIGKILL)
        owner.communicate(timeout=60)
    (tmp_path / "think" / "go").touch()
    assert tick(priya, owner_env, SLOT + timedelta(minutes=5)) == [("resumed", "drafted")]
    assert {r["token"] for r in lease_chain(bare)} == {1}
    assert [(e["key"], e["token"], e["data"]["role"]) for e in started(bare)] == [(KEY, 1, "owner")]
    assert len(finished(bare, KEY)) == 1

    assert tick(omar, omar_env, SLOT + timedelta(minutes=40)) == [("skipped", "ran-elsewhere")]
    assert {r["token"] for r in lease_chain(bare)} == {1}
    assert len(finished(bare, KEY)) == 1
    assert len(drafts(bare)) == 1
    lint = hz("state", "lint", cwd=omar, environ=omar_env)
    assert (lint.returncode, lint.stderr) == (0, ""), lint.stdout


def test_a_lease_won_this_tick_is_won_again_for_its_slot_only(tmp_path: Path) -> None:
    """Two claims of one contract's lease in one tick (one `Team`): the same slot is the same term;
    another slot (a catch-up of 10:00, then 11:00) gets no term this tick and its own term the next."""
    bare, _, (omar, omar_env) = team(tmp_path)
    with Store.from_environ(omar_env) as store:
        [row] = store.index.agents()
        plan = load_plan(store.agent_dir(str(row["id"])), row, int(row["contract_version"]), root=omar)
    ten, eleven = SLOT - timedelta(hours=1), SLOT
    now = SLOT + timedelta(minutes=30)  # the delegate, late: past the grace period of both slots

    one_tick = Team.open(omar, omar_env, "@omar")
    first = claim(one_tick, plan, ten, now)
    assert (first.won, first.token, first.why, first.role) == (True, 1, "won", "delegate")
    assert claim(one_tick, plan, ten, now) == first  # the same slot again: the same term
    other = claim(one_tick, plan, eleven, now)
    assert (other.won, other.pending, other.token) == (False, True, 0)
    assert other.why == "this tick holds the lease for slot 2026-10-26T10:00:00Z"
    assert [(r["token"], r["slot"]) for r in lease_chain(bare)] == [(1, "2026-10-26T10:00:00Z")]

    next_tick = Team.open(omar, omar_env, "@omar")
    taken = claim(next_tick, plan, eleven, now + timedelta(minutes=5))
    assert (taken.won, taken.token) == (True, 2)
    assert [(r["token"], r["slot"]) for r in lease_chain(bare)] == [
        (1, "2026-10-26T10:00:00Z"),
        (2, "2026-10-26T11:00:00Z"),
    ]
