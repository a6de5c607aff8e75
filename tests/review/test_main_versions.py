"""Team contracts are approved on `main` (issue 11, finding 4 "Approving twice").

Version n of a team contract is the n-th commit on `main` that moved its contract fingerprint. Every
member's tick and every Actions run adopts it from the remote's main as the tick fetched it, with no
`hz approve` and no `git pull`: the review of the pull request was the approval. An amendment an agent
proposes to a team contract is still refused with HZC050 when it widens the contract.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hz.heinzel.amendments import propose
from hz.heinzel.main_versions import versions_on_main
from hz.session.spine import SPINE, read_spine
from hz.session.store import Store
from tests.turn.team_harness import Member, actions_run, bare_remote, hourly, pulse_team
from tests.turn.test_late_runner import CONTRACT_ID, hz
from tests.turn.test_team import git

SLOT = datetime(2026, 10, 26, 11, 0, tzinfo=UTC)
GOAL = "The team's pulse is drafted every hour."


def merge_on_remote(tmp_path: Path, bare: Path, name: str, edit: tuple[str, str]) -> str:
    """A reviewer's clone changes the contract on a branch and merges it into main (`--no-ff`), then pushes;
    the merge commit."""
    clone = tmp_path / f"reviewer-{name}"
    git("clone", "-q", str(bare), str(clone))
    path = clone / "workflows" / "team-pulse.prose.md"
    git("checkout", "-q", "-b", name, cwd=clone)
    path.write_text(path.read_text().replace(*edit))
    git("-c", "user.name=Rae", "-c", "user.email=rae@example.org", "commit", "-q", "-am", name, cwd=clone)
    git("checkout", "-q", "main", cwd=clone)
    git("-c", "user.name=Rae", "-c", "user.email=rae@example.org", "merge", "-q", "--no-ff", "-m", f"Merge {name}",
        name, cwd=clone)  # fmt: skip
    git("push", "-q", "origin", "main", cwd=clone)
    return git("rev-parse", "HEAD", cwd=clone)


def agent(environ: dict[str, str]) -> dict[str, Any]:
    """The member's team-pulse agent as its home's index has it, with its amendments."""
    with Store.from_environ(environ) as store:
        row = store.index.agent("team-pulse", "team")
        assert row is not None
        amendments = [dict(a) for a in store.index.amendments(row["id"])]
        return {**dict(row), "amendments": amendments}


def local_team(tmp_path: Path, *names: str) -> tuple[Path, list[Member]]:
    """The pulse team on a bare remote its members reach by path, with the members `names` joined."""
    bare = bare_remote(tmp_path)
    return bare, pulse_team(tmp_path, bare, str(bare), *names)


def first_version(store: Store) -> tuple[str, str]:
    """The team-pulse agent's id in this home and the text of its contract's version 1."""
    row = store.index.agent("team-pulse", "team")
    assert row is not None
    return row["id"], (store.agent_dir(row["id"]) / "contract" / "v1.prose.md").read_text()


def test_both_members_adopt_the_merged_version_with_no_hz_approve(tmp_path: Path) -> None:
    bare, (priya, omar) = local_team(tmp_path, "priya", "omar")
    priya.tick(SLOT - timedelta(hours=2))
    omar.tick(SLOT - timedelta(hours=2))
    assert agent(priya.environ)["contract_version"] == agent(omar.environ)["contract_version"] == 1

    merge = merge_on_remote(tmp_path, bare, "goal", (GOAL, "The team's pulse is drafted every hour, with links."))
    wording = merge_on_remote(tmp_path, bare, "wording", ("Material: what moved.", "Material: what moved. "))
    assert versions_on_main(bare, git("--git-dir", str(bare), "rev-parse", "main"))  # readable from a bare repo
    for member in (priya, omar):  # nobody pulls, nobody approves
        member.tick(SLOT + timedelta(minutes=20))
        seen = agent(member.environ)
        assert seen["contract_version"] == 2, member.name
        assert [a["status"] for a in seen["amendments"]] == []  # nothing waits for hz approve
        assert git("rev-parse", "main", cwd=member.clone) != wording  # the member's own main never moved
    with Store.from_environ(priya.environ) as store:
        versions = [dict(r) for r in store.index.db.execute("SELECT * FROM versions ORDER BY version")]
    assert [v["version"] for v in versions] == [1, 2]
    assert versions[1]["amendment_id"] == f"main:{merge}"  # the merge commit moved the fingerprint, not the wording

    # an Actions run from a fresh clone starts at main's version too
    clone, environ = actions_run(tmp_path, str(bare), 7)
    fresh = Member("actions-7", clone, environ)
    fresh.tick(SLOT + timedelta(minutes=25))
    assert agent(environ)["contract_version"] == 2
    assert agent(environ)["state"] != "proposed"


def test_an_agent_may_not_widen_a_team_contract_that_main_approved(tmp_path: Path) -> None:
    bare, [priya] = local_team(tmp_path, "priya")
    priya.tick(SLOT - timedelta(hours=2))
    with Store.from_environ(priya.environ) as store:
        agent_id, text = first_version(store)
        wider = text.replace('schedule: "0 * * * *"', 'schedule: "*/5 * * * *"')
        assert wider != text
        events: list[tuple[str, dict[str, Any]]] = []
        refused = propose(lambda kind, data: events.append((kind, data)), store.agent_dir(agent_id),
                          base_version=1, namespace="team", text=wider, by="agent")  # fmt: skip
    assert refused.refusal is not None and refused.refusal.code == "HZC050"
    assert [kind for kind, _ in events] == ["amendment.proposed", "amendment.refused"]
    review = f"refs/heads/hz/draft/{CONTRACT_ID}/contract"
    assert git("--git-dir", str(bare), "for-each-ref", review) == ""  # never offered for review


def test_an_agents_amendment_of_a_team_contract_waits_for_main_not_hz_approve(tmp_path: Path) -> None:
    bare, [priya] = local_team(tmp_path, "priya")
    priya.tick(SLOT - timedelta(hours=2))
    with Store.from_environ(priya.environ) as store:
        agent_id, text = first_version(store)
        with store.writer(agent_id, now=SLOT) as writer:
            proposal = propose(lambda kind, data: writer.append(kind, data, now=SLOT), store.agent_dir(agent_id),
                               base_version=1, namespace="team", text=text.replace(GOAL, "The pulse, hourly."),
                               by="agent", amendment_id="am-pulse")  # fmt: skip
    assert proposal.refusal is None  # a narrowing: not refused, but not the agent's to approve either
    approving = hz("approve", "am-pulse", cwd=priya.clone, environ=priya.environ)
    assert approving.returncode == 1, approving.stdout + approving.stderr
    assert "team contract team-pulse, and a team contract is approved on main" in approving.stderr
    assert "pull request" in approving.stderr
    assert agent(priya.environ)["contract_version"] == 1
    assert [a["status"] for a in agent(priya.environ)["amendments"]] == ["pending"]

    merge_on_remote(tmp_path, bare, "pulse", (GOAL, "The pulse, hourly."))  # the review merged it
    priya.tick(SLOT + timedelta(minutes=20))
    assert agent(priya.environ)["contract_version"] == 2


def amending_claude(folder: Path, text: str) -> Path:
    """A `claude` for PATH whose every answer proposes `text` as its contract's amendment; its folder."""
    outcome = {"kind": "amendment", "report": "the goal, shorter", "drafts": [], "lessons": [], "question": None,
               "summary": None, "amendment": {"text": text, "reason": "a shorter goal says the same"}}  # fmt: skip
    answer = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "result": "",
              "total_cost_usd": 0.0, "usage": {"input_tokens": 10, "output_tokens": 20},
              "structured_output": outcome}  # fmt: skip
    folder.mkdir(parents=True)
    script = folder / "claude"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(answer))})\n")
    script.chmod(0o755)
    return folder


def proposing(tmp_path: Path, text: str) -> tuple[Path, Member, dict[str, str]]:
    """A team whose owner's first tick runs a turn that proposes `text` for the team contract."""
    bare, [priya] = local_team(tmp_path, "priya")
    environ = priya.with_runner(amending_claude(tmp_path / "claude", text), tmp_path / "priya" / "config")
    return bare, priya, environ


def test_an_agents_amendment_of_a_team_contract_becomes_a_branch_to_review(tmp_path: Path) -> None:
    shorter = hourly("@priya", ["@omar"]).replace(GOAL, "The pulse, hourly.")
    bare, priya, environ = proposing(tmp_path, shorter)
    woken = priya.tick(SLOT - timedelta(hours=2), environ)
    assert [(e["action"], e.get("disposition")) for e in woken] == [("started", "proposed")]
    branch = f"hz/draft/{CONTRACT_ID}/contract"
    proposed = git("--git-dir", str(bare), "show", f"{branch}:workflows/team-pulse.prose.md")
    assert "The pulse, hourly." in proposed and GOAL not in proposed
    trailers = git("--git-dir", str(bare), "log", "-1", "--format=%(trailers:only,unfold)", branch)
    assert f"Hz-Contract: {CONTRACT_ID}" in trailers and "Hz-Output: contract" in trailers
    assert git("--git-dir", str(bare), "rev-parse", f"{branch}~1") == git("--git-dir", str(bare), "rev-parse", "main")
    assert [a["status"] for a in agent(priya.environ)["amendments"]] == ["pending"]

    clone = tmp_path / "reviewer"  # the review merges the branch as it stands
    git("clone", "-q", str(bare), str(clone))
    git("-c", "user.name=Rae", "-c", "user.email=rae@example.org", "merge", "-q", "--no-ff", "-m", "Merge amendment",
        f"origin/{branch}", cwd=clone)  # fmt: skip
    git("push", "-q", "origin", "main", cwd=clone)
    priya.tick(SLOT - timedelta(hours=1, minutes=50))
    seen = agent(priya.environ)
    assert seen["contract_version"] == 2
    assert [a["status"] for a in seen["amendments"]] == ["declined"]  # main's version settled it


def test_an_agents_widening_of_a_team_contract_is_refused_and_never_offered(tmp_path: Path) -> None:
    wider = hourly("@priya", ["@omar"]).replace('schedule: "0 * * * *"', 'schedule: "*/5 * * * *"')
    bare, priya, environ = proposing(tmp_path, wider)
    priya.tick(SLOT - timedelta(hours=2), environ)
    assert [a["widens"] for a in agent(priya.environ)["amendments"]] == ['["hz.schedule"]']
    with Store.from_environ(priya.environ) as store:
        row = store.index.agent("team-pulse", "team")
        assert row is not None
        events = read_spine(store.agent_dir(row["id"]) / SPINE).events
    kinds = [e.kind for e in events if e.kind.startswith("amendment.")]
    assert kinds == ["amendment.proposed", "amendment.refused"]
    assert "place" not in next(e for e in events if e.kind == "amendment.proposed").data
    assert git("--git-dir", str(bare), "for-each-ref", f"refs/heads/hz/draft/{CONTRACT_ID}/contract") == ""
