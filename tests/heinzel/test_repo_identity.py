"""An agent belongs to one repository (issue 15, finding 7).

Every `hz init` repository holds the example contract at the same path. Two such repositories (the
second one's text edited) share one `$HZ_HOME`; each command is a real `python -m hz` process in a real
git repository, with the offline runner. A personal repository has no `[state]` (hz.toml removed); a
team one keeps `hz init`'s `[state]` and pushes to its own bare remote. A tick in one repository must
never wake the other's agent nor draft with its contract; `hz drafts` and `hz heinzel list` show this
repository's, `--all` every one's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.heinzel.lifecycle import Origin, create
from hz.heinzel.repository import Here, normalise_remote
from hz.session.store import Store

CONTRACT = "workflows/repo-digest.prose.md"
NOW = "2026-10-26T09:00Z"
HANDLE = "@your-handle"  # the owner `hz init` writes into _defaults.yaml with this handle set


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def hz(*argv: str, cwd: Path, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hz", *argv], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


def ok(*argv: str, cwd: Path, environ: dict[str, str]) -> str:
    done = hz(*argv, cwd=cwd, environ=environ)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def commit(repo: Path, message: str = "first") -> None:
    git("add", "-A", cwd=repo)
    git("-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", message, cwd=repo)


def init_repo(
    path: Path, environ: dict[str, str], *, edit: bool = False, committed: bool = True, team: bool = False
) -> Path:
    git("init", "-q", "-b", "main", str(path), cwd=path.parent)
    if team:
        git("init", "-q", "--bare", f"{path.name}.git", cwd=path.parent)
        git("remote", "add", "origin", str(path.parent / f"{path.name}.git"), cwd=path)
    ok("init", cwd=path, environ=environ)
    if not team:
        (path / "hz.toml").unlink()
    if edit:  # same path, another text: the second team's own digest
        contract = path / CONTRACT
        contract.write_text(contract.read_text().replace("two or three sentences", "three short sentences"))
    if committed:
        commit(path)
        if team:
            git("push", "-q", "origin", "main", cwd=path)
    return path


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("HZ_", "GIT_"))}
    return {**keep, "HZ_HOME": str(tmp_path / "home"), "HZ_HANDLE": HANDLE}


def tick(repo: Path, environ: dict[str, str], now: str = NOW) -> list[dict[str, Any]]:
    woken: list[dict[str, Any]] = json.loads(ok("tick", "--now", now, "--json", cwd=repo, environ=environ))["woken"]
    return woken


def spine_kinds(environ: dict[str, str], agent: str) -> list[str]:
    from hz.session.spine import read_spine

    return [e.kind for e in read_spine(Path(environ["HZ_HOME"]) / "heinzel" / agent / "session.jsonl").events]


def agents(repo: Path, environ: dict[str, str], *flags: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(ok("heinzel", "list", "--json", *flags, cwd=repo, environ=environ))
    return found


def two_repositories(tmp_path: Path, environ: dict[str, str], *, team: bool = False) -> tuple[Path, Path, str]:
    """Repositories a and b made by `hz init`; a's contract adopted (its agent's id returned)."""
    a = init_repo(tmp_path / "a", environ, team=team)
    b = init_repo(tmp_path / "b", environ, edit=True, team=team)
    ok("workflow", "migrate", cwd=a, environ=environ)
    (row,) = agents(a, environ)
    return a, b, str(row["id"])


def contract_id(repo: Path) -> str:
    return next(line.split()[1] for line in (repo / CONTRACT).read_text().splitlines() if line.startswith("id:"))


@pytest.mark.parametrize("team", [False, True], ids=["personal", "team"])
def test_a_tick_in_another_repository_never_wakes_the_agent_nor_drafts_with_its_contract(
    tmp_path: Path, environ: dict[str, str], team: bool
) -> None:
    a, b, agent = two_repositories(tmp_path, environ, team=team)
    woken = tick(b, environ)
    assert [e for e in woken if e["agent"] == "repo-digest"] == []  # a's agent: b's own is repo-digest-b
    assert "turn.started" not in spine_kinds(environ, agent)
    assert "contract.amended" not in spine_kinds(environ, agent)  # nor moved to b's main version
    if team:  # b's own agent drafted b's contract, on b's remote; nothing of a's went there
        assert [e["agent"] for e in woken] == ["repo-digest-b"]
        assert contract_id(a) not in git("ls-remote", str(tmp_path / "b.git"), cwd=tmp_path)
    else:
        assert woken == []
        assert git("status", "--porcelain", cwd=b) == "" and git("branch", "--list", "hz/*", cwd=b) == ""
    # in its own repository it drafts as before, with its own contract
    assert [(e["agent"], e["action"]) for e in tick(a, environ)] == [("repo-digest", "started")]
    assert "turn.started" in spine_kinds(environ, agent)


def test_hz_drafts_and_the_list_show_this_repositorys_agents_and_all_with_all(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    a, b, agent = two_repositories(tmp_path, environ)
    tick(a, environ)
    assert [d["key"].split("@")[0] for d in json.loads(ok("drafts", "--json", cwd=a, environ=environ))] == [agent]
    assert json.loads(ok("drafts", "--json", cwd=b, environ=environ)) == []
    everywhere = json.loads(ok("drafts", "--json", "--all", cwd=b, environ=environ))
    assert [(d["agent"], d["repository"].startswith("root ")) for d in everywhere] == [("team:repo-digest", True)]
    assert "in root " in ok("drafts", "--all", cwd=b, environ=environ)
    assert agents(b, environ) == []
    # b adopts its own text: an agent of its own, named apart, never an amendment of a's
    said = hz("workflow", "migrate", cwd=b, environ=environ)
    assert said.returncode == 0 and "team:repo-digest-b: Heinzelmännchen created" in said.stdout + said.stderr
    (own,) = agents(b, environ)
    assert own["id"] != agent and own["name"] == "repo-digest-b" and own["contract"]["version"] == 1
    assert "amendment.proposed" not in spine_kinds(environ, agent)
    table = ok("heinzel", "list", "--all", cwd=b, environ=environ)
    assert "REPOSITORY" in table and agent in table and own["id"] in table
    roots = {row["id"]: row["repository"]["root"] for row in agents(b, environ, "--all")}
    assert roots == {agent: git("rev-parse", "HEAD", cwd=a), own["id"]: git("rev-parse", "HEAD", cwd=b)}


def test_a_second_clone_of_the_repository_is_the_same_repository(tmp_path: Path, environ: dict[str, str]) -> None:
    a, _, agent = two_repositories(tmp_path, environ)
    clone = tmp_path / "a-clone"
    git("clone", "-q", str(a), str(clone), cwd=tmp_path)
    assert [row["id"] for row in agents(clone, environ)] == [agent]
    said = hz("workflow", "migrate", cwd=clone, environ=environ)
    assert said.returncode == 0 and "created" not in said.stdout + said.stderr
    assert [row["id"] for row in agents(clone, environ, "--all")] == [agent]  # no second agent for the clone
    assert [(e["agent"], e["action"]) for e in tick(clone, environ)] == [("repo-digest", "started")]


def test_a_moved_remote_keeps_the_agent_and_adoption_records_where_it_lives_now(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    a, _, agent = two_repositories(tmp_path, environ, team=True)
    assert agents(a, environ)[0]["repository"]["remote"] == str(tmp_path / "a")
    moved = tmp_path / "moved.git"
    (tmp_path / "a.git").rename(moved)
    git("remote", "set-url", "origin", f"file://user:secret@localhost{moved}", cwd=a)
    ok("workflow", "migrate", cwd=a, environ=environ)
    (row,) = agents(a, environ)
    assert row["id"] == agent and row["repository"]["remote"] == f"localhost{tmp_path / 'moved'}"
    assert [(e["agent"], e["action"]) for e in tick(a, environ)] == [("repo-digest", "started")]


def test_a_shallow_clone_is_named_by_its_remote_its_cut_is_no_root(tmp_path: Path, environ: dict[str, str]) -> None:
    a, _, agent = two_repositories(tmp_path, environ, team=True)
    (a / "notes.md").write_text("more")  # a second commit, so the shallow clone's cut is not the root
    commit(a, "second")
    git("push", "-q", "origin", "main", cwd=a)
    shallow = tmp_path / "a-shallow"
    git("clone", "-q", "--depth", "1", f"file://{tmp_path / 'a.git'}", str(shallow), cwd=tmp_path)
    assert Here(shallow).commit is None and Here(shallow).remote == Here(a).remote
    assert [row["id"] for row in agents(shallow, environ)] == [agent]
    assert agents(tmp_path / "b", environ) == []


def test_an_old_home_is_bound_on_its_first_tick_in_its_own_repository(tmp_path: Path, environ: dict[str, str]) -> None:
    a = init_repo(tmp_path / "a", environ)
    b = init_repo(tmp_path / "b", environ, edit=True)
    with Store.from_environ(environ) as store:  # adopted as hz did before identities: the path alone
        from hz.heinzel.adopt import contract_text_at

        text = contract_text_at(a, CONTRACT, environ)
        assert text is not None
        agent = create(store, text, label=CONTRACT, namespace="team", handle=HANDLE, approve=True,
                       origin=Origin("adopted", CONTRACT), now=datetime(2026, 10, 20, tzinfo=UTC))  # fmt: skip
    assert [e for e in tick(b, environ) if e["action"] != "error"] == []  # another text at that path
    assert "heinzel.bound" not in spine_kinds(environ, agent) and "turn.started" not in spine_kinds(environ, agent)
    assert "repository not bound yet" in ok("heinzel", "show", agent, cwd=a, environ=environ)
    assert [(e["agent"], e["action"]) for e in tick(a, environ)] == [("repo-digest", "started")]
    assert spine_kinds(environ, agent).count("heinzel.bound") == 1
    (row,) = agents(a, environ)
    assert row["repository"]["root"] == git("rev-parse", "HEAD", cwd=a)
    assert f"repository root {row['repository']['root'][:12]}" in ok("heinzel", "show", agent, cwd=a, environ=environ)
    assert agents(b, environ) == []  # bound: b never sees it again, whatever b holds at that path
    (b / CONTRACT).write_text((a / CONTRACT).read_text())
    commit(b, "same text as a")
    assert [e for e in tick(b, environ, "2026-11-02T09:00Z") if e["action"] != "error"] == []


def test_a_repository_without_a_commit_binds_its_agent_on_the_first_tick_after_one(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    a = init_repo(tmp_path / "a", environ, committed=False)
    ok("workflow", "migrate", cwd=a, environ=environ)
    (row,) = agents(a, environ)
    assert row["repository"] == {"path": str(a)}
    commit(a)
    assert [(e["agent"], e["action"]) for e in tick(a, environ)] == [("repo-digest", "started")]
    (row,) = agents(a, environ)
    assert row["repository"] == {"root": git("rev-parse", "HEAD", cwd=a)}


def test_the_root_commit_is_the_mainlines_and_merging_another_history_keeps_it(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    assert Here(repo).commit is None
    (repo / "one").write_text("1")
    commit(repo)
    first = git("rev-parse", "HEAD", cwd=repo)
    git("checkout", "-q", "--orphan", "other", cwd=repo)
    (repo / "two").write_text("2")
    commit(repo, "another root")
    git("checkout", "-q", "main", cwd=repo)
    git("-c", "user.name=T", "-c", "user.email=t@example.invalid", "merge", "-q", "--allow-unrelated-histories",
        "-m", "merge", "other", cwd=repo)  # fmt: skip
    assert len(git("rev-list", "--max-parents=0", "HEAD", cwd=repo).split()) == 2
    assert Here(repo).commit == first


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Org/repo.git", "github.com/Org/repo"),
        ("https://github.com/Org/repo", "github.com/Org/repo"),
        ("https://x-access-token:ghs_SECRET@GitHub.com/Org/repo.git/", "github.com/Org/repo"),
        ("ssh://git@github.com:2222/Org/repo.git", "github.com:2222/Org/repo"),
        ("https://host/repo.git?token=SECRET#x", "host/repo"),
        ("/srv/git/team.git", "/srv/git/team"),
        ("", None),
    ],
)
def test_a_remote_is_normalised_without_secrets(url: str, expected: str | None) -> None:
    assert normalise_remote(url) == expected
