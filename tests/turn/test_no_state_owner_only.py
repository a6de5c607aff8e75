"""Without `[state]` in hz.toml a team contract runs on its owner's machine alone; the others are told once.

Each member has their own clone and `$HZ_HOME`; every tick is a real `hz tick` process. Before this
rule, every member's tick drafted every team contract (issue 10, finding 5).
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.contract.load import load_text
from hz.session.store import Store
from hz.tick.owner_only import RULE, runs_here
from hz.turn.plan import plan_from_contract
from tests.turn.team_harness import bare_remote, push_main
from tests.turn.test_team import FRIDAY, MONDAY, TEAM, git, member

STATE_HINT = "add a [state] table to hz.toml (an empty one will do) so members share team slots through leases"
HANDLE_HINT = 'if you own it, set [user] handle = "@you" in config.toml (or HZ_HANDLE); else ' + STATE_HINT


def team_repo(tmp: Path) -> tuple[Path, Path]:
    """A bare remote with the hook installed, and a main with the team contract and no hz.toml; the seed
    clone that made it."""
    bare = bare_remote(tmp)
    hook = subprocess.run([sys.executable, "-m", "hz", "state", "install-hook", str(bare)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert hook.returncode == 0, hook.stderr
    seed = push_main(tmp, bare, {"workflows/team-note.prose.md": TEAM})  # on main: the hook takes roles from it
    return bare, seed


def hz_tick(clone: Path, environ: dict[str, str], now: datetime, *json_flag: str) -> tuple[int, str, str]:
    argv = [sys.executable, "-m", "hz", "tick", "--now", now.isoformat(), *json_flag]
    env = {**environ, "PWD": str(clone)}
    done = subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True, timeout=120, check=False)
    return done.returncode, done.stdout, done.stderr


def spine(environ: dict[str, str]) -> list[tuple[str, str | None]]:
    """The kind of each turn line in the member's one agent, with a skip's reason."""
    with Store.from_environ(environ) as store:
        (row,) = store.index.agents()
        events = store.read(str(row["id"])).events
    turns = ("turn.started", "turn.finished", "turn.skipped")
    return [(e.kind, e.data.get("reason") if e.kind == "turn.skipped" else None) for e in events if e.kind in turns]


def drafts(clone: Path) -> list[str]:
    return [b for b in git("branch", "--list", "hz/draft/*", cwd=clone).split() if b != "*"]


def test_only_the_owner_drafts_the_others_are_told_once_and_a_later_state_leases_for_both(tmp_path: Path) -> None:
    bare, seed = team_repo(tmp_path)
    priya, priya_env = member(tmp_path, "priya", bare)
    omar, omar_env = member(tmp_path, "omar", bare)

    # omar maintains the contract but does not own it: no draft, no model call, one notice, exit 0
    assert hz_tick(omar, omar_env, MONDAY) == (0, "\n".join([
        f"team-note: not run here: {RULE} (its owner is @priya, you are @omar)",
        f"  hint: {STATE_HINT}",
    ]) + "\n", "")  # fmt: skip
    code, out, err = hz_tick(omar, omar_env, FRIDAY, "--json")  # the next slot: skipped again, silently
    assert (code, json.loads(out)["woken"], err) == (0, [], "")
    assert hz_tick(omar, omar_env, FRIDAY + timedelta(minutes=5)) == (0, "nothing due\n", "")
    assert spine(omar_env) == [("turn.skipped", "not-owner"), ("turn.skipped", "not-owner")]
    assert drafts(omar) == []
    shown = subprocess.run([sys.executable, "-m", "hz", "heinzel", "show", "team-note"], cwd=omar, env=omar_env,
                           capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert (shown.returncode, shown.stderr) == (0, ""), shown.stdout  # the skip lines read back like any other

    # priya owns it: her ticks draft both slots, unleased (there is no [state] to lease through)
    for when in (MONDAY, FRIDAY):
        code, out, err = hz_tick(priya, priya_env, when)
        assert (code, out.startswith("team-note: started -> drafted"), err) == (0, True, ""), out + err
    # one branch per idempotency key (docs/decisions.md, issue 19): Monday's catch-up (week 43) and
    # Friday's (week 44) are two keys, each on its own branch; both turns drafted
    (_, branch) = drafts(priya)
    slot = git("log", "-1", "--format=%(trailers:key=Hz-Slot,valueonly)", branch, cwd=priya).strip()
    assert ("/note@" in branch and "W44" in branch, slot) == (True, FRIDAY.strftime("%Y-%m-%dT%H:%MZ"))
    assert spine(priya_env) == [("turn.started", None), ("turn.finished", None)] * 2
    assert git("--git-dir", str(bare), "for-each-ref", "refs/hz/") == ""

    # the team adds an empty [state]: from the next slot on both take the leased path
    (seed / "hz.toml").write_text("[state]\n")
    git("add", "hz.toml", cwd=seed)
    git("commit", "-q", "-m", "coordinate team contracts", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    for clone in (priya, omar):
        git("pull", "-q", "--ff-only", "origin", "main", cwd=clone)
    week = FRIDAY + timedelta(days=7)
    code, out, err = hz_tick(priya, priya_env, week)
    assert (code, out.startswith("team-note: started -> drafted"), err) == (0, True, ""), out + err
    assert hz_tick(omar, omar_env, week + timedelta(minutes=15)) == (0, "team-note: skipped -> ran-elsewhere\n", "")
    # priya is away the week after: omar, a maintainer, takes the slot once the grace period passed
    later = week + timedelta(days=7, minutes=15)
    code, out, err = hz_tick(omar, omar_env, later)
    assert (code, out.startswith("team-note: started -> drafted"), err) == (0, True, ""), out + err
    assert spine(omar_env)[2:] == [("turn.skipped", "ran-elsewhere"), ("turn.started", None),
                                   ("turn.finished", None)]  # fmt: skip
    assert len(drafts(omar)) == 1
    lease = git("--git-dir", str(bare), "for-each-ref", "--format=%(refname)", "refs/hz/lease/")
    assert lease.startswith("refs/hz/lease/hz-")


def test_without_a_handle_no_team_contract_runs_and_the_hint_names_the_handle(tmp_path: Path) -> None:
    bare, _ = team_repo(tmp_path)
    clone, environ = member(tmp_path, "priya", bare)
    del environ["HZ_HANDLE"]  # priya may be the owner, but this machine cannot tell
    code, out, err = hz_tick(clone, environ, MONDAY, "--json")
    assert (code, json.loads(out)["woken"], err) == (0, [{
        "agent": "team-note", "action": "not-owner", "reason": RULE, "owner": "@priya", "handle": None,
        "detail": "its owner is @priya, no handle is set here", "hint": HANDLE_HINT,
    }], "")  # fmt: skip
    assert hz_tick(clone, environ, FRIDAY) == (0, "nothing due\n", "")
    assert (spine(environ), drafts(clone)) == ([("turn.skipped", "not-owner"), ("turn.skipped", "not-owner")], [])
    # once the handle is set, the owner's machine runs its next slot
    code, out, err = hz_tick(clone, {**environ, "HZ_HANDLE": "@priya"}, FRIDAY + timedelta(days=7))
    assert (code, out.startswith("team-note: started -> drafted"), err) == (0, True, ""), out + err


HANDLES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(owner=HANDLES, me=HANDLES, at=st.booleans(), team_owner=st.booleans())
def test_a_machine_runs_a_team_contract_without_state_exactly_when_its_handle_is_the_owner(
    owner: str, me: str, at: bool, team_owner: bool
) -> None:
    """However the handle is spelled (`@` or not), a member's handle owns the contract; a team never does."""
    owner_field = f"@acme/{owner}" if team_owner else f"@{owner}"
    loaded = load_text(TEAM.replace('owner: "@priya"', f'owner: "{owner_field}"'))
    assert loaded.contract is not None, loaded.diagnostics
    plan = plan_from_contract(loaded.contract, agent_id="a", name="team-note", version=1, root=None)
    mine = ("@" if at else "") + me
    assert runs_here(plan, mine) is (not team_owner and me == owner)
    assert runs_here(plan, mine.replace(me, owner)) is not team_owner
    assert runs_here(plan, None) is False  # no handle: this machine cannot tell, so it runs none
