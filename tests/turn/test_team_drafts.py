"""Team drafts reach the remote: the tick's one push carries the `hz/draft/<contract>/<output>@<key>` branch."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from hz.review.branches import branch_name
from hz.tick.daemon import tick
from tests.turn.test_team import CONTRACT_ID, FRIDAY, MONDAY, TEAM, git, member

W43 = branch_name(CONTRACT_ID, "note", "state:notes/2026-W43.md")  # the Friday slot Monday catches up on
W44 = branch_name(CONTRACT_ID, "note", "state:notes/2026-W44.md")


def _team_repo(tmp_path: Path) -> Path:
    bare = tmp_path / "team.git"
    git("init", "-q", "--bare", str(bare))
    seed = tmp_path / "seed"
    git("init", "-q", str(seed))
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    (seed / "workflows").mkdir()
    (seed / "workflows" / "team-note.prose.md").write_text(TEAM)  # drafts are judged for contracts on main only
    git("add", "hz.toml", "workflows", cwd=seed)
    git("commit", "-q", "-m", "team repo", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    return bare


def _drafts(git_dir: Path) -> dict[str, str]:
    listed = git("--git-dir", str(git_dir), "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/hz/draft/")
    return dict(line.split(" ") for line in listed.splitlines())


def test_the_draft_branch_goes_out_with_the_receipts_and_other_members_see_it(tmp_path: Path) -> None:
    bare = _team_repo(tmp_path)
    priya, priya_env = member(tmp_path, "priya", bare)
    omar, _ = member(tmp_path, "omar", bare)
    created = tick(root=priya, environ=priya_env, now=MONDAY)
    assert [(e["action"], e.get("disposition")) for e in created.woken] == [("started", "drafted")]
    assert created.pushed is True
    assert list(_drafts(bare)) == [f"refs/heads/{W43}"]
    assert _drafts(bare) == _drafts(priya / ".git")

    friday = tick(root=priya, environ=priya_env, now=FRIDAY)
    assert [(e["action"], e.get("disposition")) for e in friday.woken] == [("started", "drafted")]
    assert list(_drafts(bare)) == [f"refs/heads/{W43}", f"refs/heads/{W44}"]  # another week: another key, beside
    assert _drafts(bare) == _drafts(priya / ".git")
    assert git("--git-dir", str(bare), "log", "--format=%(trailers:key=Hz-Slot,valueonly)", "-1", W44) == (
        "2026-10-30T15:00Z"
    )

    git("fetch", "-q", "origin", cwd=omar)  # a reviewer sees the draft as a branch to review and merge
    seen = git("branch", "-r", "--list", "origin/hz/draft/*", "--format=%(refname:short)", cwd=omar).splitlines()
    assert seen == [f"origin/{W43}", f"origin/{W44}"]


def test_something_else_under_the_branch_name_is_replaced_and_the_receipts_land(tmp_path: Path) -> None:
    bare = _team_repo(tmp_path)
    priya, priya_env = member(tmp_path, "priya", bare)
    tick(root=priya, environ=priya_env, now=MONDAY)
    ref = f"refs/heads/{W44}"
    # somebody else pushed an unrelated history under the name of the branch of Friday's draft
    other = tmp_path / "other"
    git("init", "-q", str(other))
    (other / "x.md").write_text("not a draft\n")
    git("add", "x.md", cwd=other)
    git("commit", "-q", "-m", "unrelated", cwd=other)
    git("push", "-q", "-f", str(bare), f"HEAD:{ref}", cwd=other)

    friday = tick(root=priya, environ=priya_env, now=FRIDAY + timedelta(minutes=1))
    said = [(e["action"], e.get("disposition"), e.get("error")) for e in friday.woken]
    assert ("started", "drafted", None) in said and not [e for e in friday.woken if e["action"] == "error"]
    assert friday.pushed is True
    assert _drafts(bare) == _drafts(priya / ".git")  # the newer draft, forced over the tip the tick saw
    state = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    assert len(state) == 6  # both turns' receipts landed all the same (the planted commit was no draft of hz's)


def test_a_same_key_draft_supersedes_the_pending_one_in_the_push_that_places_it(tmp_path: Path) -> None:
    """Monday 10:00's wake drafts week 44's note; Friday's slot drafts week 44 again: the same key, so the
    branch moves on and the wake's draft is recorded superseded by Friday's, in the commit of hz/state
    that places Friday's draft, under that turn's lease term (no later tick needed)."""
    from tests.turn.test_late_runner import hz

    bare = _team_repo(tmp_path)
    priya, priya_env = member(tmp_path, "priya", bare)
    tick(root=priya, environ=priya_env, now=MONDAY)  # week 43's catch-up
    woke = hz("heinzel", "wake", "team-note", "--now", (MONDAY + timedelta(hours=1)).isoformat(), cwd=priya,
              environ=priya_env)  # fmt: skip
    assert (woke.returncode, woke.stderr) == (0, ""), woke.stdout
    assert list(_drafts(bare)) == [f"refs/heads/{W43}", f"refs/heads/{W44}"]

    tick(root=priya, environ=priya_env, now=FRIDAY)
    assert list(_drafts(bare)) == [f"refs/heads/{W43}", f"refs/heads/{W44}"]  # week 44's branch moved on
    commits = git("--git-dir", str(bare), "rev-list", "hz/state").split()
    added = {c: git("--git-dir", str(bare), "diff-tree", "--no-commit-id", "--name-only", "-r", "--root", c).split()
             for c in commits}  # fmt: skip
    (placing,) = [c for c, paths in added.items() if any("/draft.superseded-" in p for p in paths)]
    read = [git("--git-dir", str(bare), "show", f"{placing}:{p}") for p in added[placing]]
    events = {e["kind"]: e for e in map(json.loads, read)}
    lease = f"hz-{CONTRACT_ID}"
    friday = f"{lease}@v1@2026-10-30T15:00Z@state:notes/2026-W44.md"
    assert events["draft.placed"]["key"] == friday  # the same commit places the newer draft
    gone = events["draft.superseded"]
    assert (gone["key"], gone["data"], gone["lease"], gone["token"]) == (
        f"{lease}@v1@2026-10-26T10:00Z@state:notes/2026-W44.md",
        {"key": gone["key"], "asset": "state:notes/2026-W44.md", "by": friday},
        lease,
        events["draft.placed"]["token"],
    )
