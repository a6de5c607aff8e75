"""Team contracts approved on main, the left-overs (issue 11, "Team contracts are approved on main").

- A merge on main that changes only keys the contract fingerprint leaves out (`schedule:`, owner,
  maintainers, wording) is no new version, yet every member runs main's text from the next tick.
- A contract renamed on main keeps its `id:`, and so its agent and session.
- An agent's amendment branch `hz/draft/<contract id>/contract` is deleted once main holds it, and its
  file is the contract file's own text changed (no directory defaults merged in).
- A tick in another repository does not take the heavy path for an agent that is not its own.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from tests.review.test_main_versions import merge_on_remote
from tests.turn.team_harness import Member, actions_run, bare_remote, hourly, seed_remote
from tests.turn.test_late_runner import CONTRACT_ID
from tests.turn.test_team import git

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)


def team(tmp_path: Path, contract: str | None = None) -> tuple[Path, Member, Member]:
    bare = bare_remote(tmp_path)
    seed_remote(tmp_path, bare, str(bare), contract or hourly("@priya", ["@omar"]))
    return bare, Member.join(tmp_path, "priya", str(bare)), Member.join(tmp_path, "omar", str(bare))


def team_agents(environ: dict[str, str]) -> list[dict[str, Any]]:
    with Store.from_environ(environ) as store:
        return [dict(r) for r in store.index.agents() if r["namespace"] == "team"]


def spine_kinds(environ: dict[str, str], agent_id: str) -> list[tuple[str, dict[str, Any]]]:
    with Store.from_environ(environ) as store:
        return [(e.kind, dict(e.data)) for e in read_spine(store.agent_dir(agent_id) / SPINE).events]


def agent_id(member: Member) -> str:
    (agent,) = team_agents(member.environ)
    return str(agent["id"])


def started_keys(member: Member) -> list[str]:
    """The keys of every turn the member's agent started (its slots: `<agent>@<slot>`)."""
    events = spine_kinds(member.environ, agent_id(member))
    return [key for kind, data in events if kind == "turn.started" for key in data["keys"]]


def test_a_schedule_merged_on_main_is_what_every_member_runs_at_the_same_version(tmp_path: Path) -> None:
    bare, priya, omar = team(tmp_path)
    for member in (priya, omar):
        member.tick(SLOT + timedelta(minutes=5))
    merge = merge_on_remote(tmp_path, bare, "half-past", ('schedule: "0 * * * *"', 'schedule: "30 * * * *"'))
    for member in (priya, omar):
        member.tick(SLOT + timedelta(minutes=20))  # adopts main's text: 11:30 is the next slot, not 12:00
        (agent,) = team_agents(member.environ)
        assert agent["contract_version"] == 1, member.name  # no fingerprint moved: no new version
        assert agent["next_due"] == "2026-10-26T11:30:00Z", member.name
        refreshed = [d for kind, d in spine_kinds(member.environ, agent["id"]) if kind == "contract.refreshed"]
        assert [(d["version"], d["commit"]) for d in refreshed] == [(1, merge)]
        with Store.from_environ(member.environ) as store:
            text = (store.agent_dir(agent["id"]) / "contract" / "v1.prose.md").read_text()
        assert 'schedule: "30 * * * *"' in text or "schedule: 30 * * * *" in text
    priya.tick(SLOT + timedelta(minutes=32))  # the owner runs the 11:30 slot, which the old schedule had not
    assert f"{agent_id(priya)}@2026-10-26T11:30Z" in started_keys(priya)
    woken = omar.tick(SLOT + timedelta(minutes=33))  # the maintainer's tick: the same slot, the owner's to run
    assert ("skipped", "schedule") in [(e["action"], e.get("cause")) for e in woken if e["agent"] == "team-pulse"]

    clone, environ = actions_run(tmp_path, str(bare), 9)  # an Actions run adopts main's text as it is
    Member("actions-9", clone, environ).tick(SLOT + timedelta(minutes=34))
    (fresh,) = team_agents(environ)
    assert fresh["next_due"] == "2026-10-26T12:30:00Z"


def test_an_owner_change_on_main_reaches_the_members_version(tmp_path: Path) -> None:
    bare, _, omar = team(tmp_path)
    omar.tick(SLOT + timedelta(minutes=5))
    merge_on_remote(tmp_path, bare, "owner", ('owner: "@priya"', 'owner: "@omar"'))
    omar.tick(SLOT + timedelta(minutes=20))
    (agent,) = team_agents(omar.environ)
    with Store.from_environ(omar.environ) as store:
        text = (store.agent_dir(agent["id"]) / "contract" / f"v{agent['contract_version']}.prose.md").read_text()
    assert "@omar" in text.split("maintainers")[0]  # the owner main names is the one this member runs


def test_a_contract_renamed_on_main_keeps_its_agent_and_session(tmp_path: Path) -> None:
    bare, priya, _ = team(tmp_path)
    priya.tick(SLOT + timedelta(minutes=5))
    (before,) = team_agents(priya.environ)
    mover = tmp_path / "mover"  # the file and its name change, the id stays
    git("clone", "-q", str(bare), str(mover))
    git("mv", "workflows/team-pulse.prose.md", "workflows/team-heartbeat.prose.md", cwd=mover)
    path = mover / "workflows" / "team-heartbeat.prose.md"
    path.write_text(path.read_text().replace("name: team-pulse", "name: team-heartbeat"))
    git("-c", "user.name=Rae", "-c", "user.email=rae@example.org", "commit", "-q", "-am", "rename", cwd=mover)
    git("push", "-q", "origin", "main", cwd=mover)
    assert CONTRACT_ID in git("--git-dir", str(bare), "show", "main:workflows/team-heartbeat.prose.md")

    priya.tick(SLOT + timedelta(minutes=20))
    agents = team_agents(priya.environ)
    assert [a["id"] for a in agents] == [before["id"]]  # no second agent: the id is the contract's identity
    assert agents[0]["name"] == "team-heartbeat"
    assert agents[0]["contract_version"] == 1  # a name is no fingerprint: the same version, main's text
    events = spine_kinds(priya.environ, before["id"])
    assert [d for kind, d in events if kind == "heinzel.renamed"] == [
        {"name": "team-heartbeat", "previous": "team-pulse"}
    ]
    assert [kind for kind, _ in events].count("contract.refreshed") == 1
    priya.tick(SLOT + timedelta(minutes=25))  # nothing more to follow
    assert [a["id"] for a in team_agents(priya.environ)] == [before["id"]]
    assert [kind for kind, _ in spine_kinds(priya.environ, before["id"])].count("heinzel.renamed") == 1


LOOK = """
import json, sys
from datetime import datetime
from pathlib import Path
from hz.tick.daemon import tick
report = tick(root=Path(sys.argv[1]), now=datetime.fromisoformat(sys.argv[2]))
print(json.dumps({"heavy": "hz.tick.ticking" in sys.modules, "woken": report.woken}))
"""


def test_a_tick_in_another_repository_stays_idle_while_this_ones_agent_is_due(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    _, priya, _ = team(tmp_path)
    priya.tick(SLOT + timedelta(minutes=5))  # adopted in the team repository, its 11:00 slot run
    other = tmp_path / "other"
    git("init", "-q", "-b", "main", str(other))
    (other / "notes.md").write_text("notes\n")
    git("add", "notes.md", cwd=other)
    git("-c", "user.name=P", "-c", "user.email=p@example.org", "commit", "-q", "-m", "first", cwd=other)
    (agent,) = team_agents(priya.environ)
    due = SLOT + timedelta(hours=1, minutes=2)
    assert agent["next_due"] == "2026-10-26T12:00:00Z"

    def look(root: Path) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-c", LOOK, str(root), due.isoformat()], env=priya.environ,
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    assert look(other) == {"heavy": False, "woken": []}  # not loaded only to be dropped
    assert look(priya.clone)["heavy"] is True  # at home it is due


DEFAULTS = "hz:\n  tags: [pulse]\n"


def amendment_team(tmp_path: Path, change: tuple[str, str]) -> tuple[Path, Member, str, str]:
    """A team repository whose `workflows/` has defaults, and the owner's first tick running a turn that
    proposes its contract (as the agent reads it: self-contained) with `change` made; the bare remote,
    the owner, the file on main and the branch."""
    from hz.heinzel.adopt import self_contained
    from tests.review.test_main_versions import amending_claude

    file = hourly("@priya", ["@omar"])
    proposed = self_contained(file, {"tags": ["pulse"]}).replace(*change)
    assert "tags" in proposed and proposed != self_contained(file, {"tags": ["pulse"]})
    bare = bare_remote(tmp_path)
    seed_remote(tmp_path, bare, str(bare), file, others={"_defaults.yaml": DEFAULTS})
    priya = Member.join(tmp_path, "priya", str(bare))
    environ = priya.with_runner(amending_claude(tmp_path / "claude", proposed), tmp_path / "priya" / "config")
    priya.tick(SLOT - timedelta(hours=2), environ)
    branch = f"hz/draft/{CONTRACT_ID}/contract"
    assert git("--git-dir", str(bare), "for-each-ref", f"refs/heads/{branch}"), "no amendment branch"
    return bare, priya, file, branch


def test_an_amendment_branch_holds_the_files_own_text_changed(tmp_path: Path) -> None:
    goal = "The team's pulse is drafted every hour."
    bare, _, file, branch = amendment_team(tmp_path, (goal, "The pulse, hourly."))
    on_branch = git("--git-dir", str(bare), "show", f"{branch}:workflows/team-pulse.prose.md")
    assert on_branch.strip() == file.replace(goal, "The pulse, hourly.").strip()  # no defaults, same lines
    changed = git("--git-dir", str(bare), "diff", "--stat", "main", branch)
    assert "1 file changed, 1 insertion(+), 1 deletion(-)" in changed


def test_an_amendment_of_the_frontmatter_leaves_the_defaults_out(tmp_path: Path) -> None:
    from hz.review.amendment_branch import file_text

    repo = tmp_path / "repo"
    (repo / "workflows").mkdir(parents=True)
    git("init", "-q", "-b", "main", str(repo))
    file = hourly("@priya", ["@omar"])
    (repo / "workflows" / "team-pulse.prose.md").write_text(file)
    (repo / "workflows" / "_defaults.yaml").write_text(DEFAULTS)
    git("add", "workflows", cwd=repo)
    git("-c", "user.name=P", "-c", "user.email=p@example.org", "commit", "-q", "-m", "first", cwd=repo)
    from hz.heinzel.adopt import self_contained

    proposed = self_contained(file, {"tags": ["pulse"]}).replace("title: Team pulse", "title: The pulse")
    written = file_text(repo, "refs/heads/main", "workflows/team-pulse.prose.md", proposed)
    assert "title: The pulse" in written and "tags" not in written
    assert written.endswith(file.split("---\n", 2)[2])  # the body as it was


def test_a_merged_amendment_branch_is_deleted_by_the_next_tick(tmp_path: Path) -> None:
    goal = "The team's pulse is drafted every hour."
    bare, priya, _, branch = amendment_team(tmp_path, (goal, "The pulse, hourly."))
    reviewer = tmp_path / "reviewer"
    git("clone", "-q", str(bare), str(reviewer))
    git("-c", "user.name=Rae", "-c", "user.email=rae@example.org", "merge", "-q", "--squash", f"origin/{branch}",
        cwd=reviewer)  # fmt: skip
    git("-c", "user.name=Rae", "-c", "user.email=rae@example.org", "commit", "-q", "-m", "Shorter", cwd=reviewer)
    git("push", "-q", "origin", "main", cwd=reviewer)  # squashed; the branch left on the remote
    priya.tick(SLOT - timedelta(hours=1, minutes=50))
    assert git("--git-dir", str(bare), "for-each-ref", f"refs/heads/{branch}") == ""
    assert git("for-each-ref", f"refs/heads/{branch}", cwd=priya.clone) == ""  # nor left in her clone
    (agent,) = team_agents(priya.environ)
    assert agent["contract_version"] == 2


def test_an_amendment_branch_stays_while_its_review_is_open(tmp_path: Path) -> None:
    goal = "The team's pulse is drafted every hour."
    bare, priya, _, branch = amendment_team(tmp_path, (goal, "The pulse, hourly."))
    tip = git("--git-dir", str(bare), "rev-parse", branch)
    priya.tick(SLOT - timedelta(hours=1, minutes=50))
    assert git("--git-dir", str(bare), "rev-parse", branch) == tip
