"""Team drafts reach the remote: the tick's one push carries the new `hz/draft/<agent>/<slot>` branches."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from hz.tick.daemon import tick
from tests.turn.test_team import FRIDAY, MONDAY, git, member


def _team_repo(tmp_path: Path) -> Path:
    bare = tmp_path / "team.git"
    git("init", "-q", "--bare", str(bare))
    seed = tmp_path / "seed"
    git("init", "-q", str(seed))
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    git("add", "hz.toml", cwd=seed)
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
    local = _drafts(priya / ".git")
    assert len(local) == 1 and next(iter(local)).endswith("/2026-10-23T1500Z")
    assert _drafts(bare) == local

    friday = tick(root=priya, environ=priya_env, now=FRIDAY)
    assert [(e["action"], e.get("disposition")) for e in friday.woken] == [("started", "drafted")]
    assert _drafts(bare) == _drafts(priya / ".git") and len(_drafts(bare)) == 2

    git("fetch", "-q", "origin", cwd=omar)  # a reviewer sees the draft as a branch to review and merge
    seen = git("branch", "-r", "--list", "origin/hz/draft/*", "--format=%(refname:short)", cwd=omar).splitlines()
    assert [b.rsplit("/", 1)[1] for b in seen] == ["2026-10-23T1500Z", "2026-10-30T1500Z"]


def test_a_draft_branch_the_remote_refuses_never_holds_back_the_receipts(tmp_path: Path) -> None:
    bare = _team_repo(tmp_path)
    priya, priya_env = member(tmp_path, "priya", bare)
    tick(root=priya, environ=priya_env, now=MONDAY)
    monday_ref = next(iter(_drafts(bare)))
    friday_ref = monday_ref.rsplit("/", 1)[0] + "/2026-10-30T1500Z"
    # somebody else already pushed an unrelated history under the name this Friday's draft will take
    other = tmp_path / "other"
    git("init", "-q", str(other))
    (other / "x.md").write_text("not a draft\n")
    git("add", "x.md", cwd=other)
    git("commit", "-q", "-m", "unrelated", cwd=other)
    git("push", "-q", str(bare), f"HEAD:{friday_ref}", cwd=other)
    unrelated = _drafts(bare)[friday_ref]

    friday = tick(root=priya, environ=priya_env, now=FRIDAY + timedelta(minutes=1))
    branch = friday_ref.removeprefix("refs/heads/")
    assert [(e["action"], e.get("disposition"), e.get("error")) for e in friday.woken] == [
        ("started", "drafted", None),
        ("error", None, f"the remote refused the draft branch {branch}: [rejected] (non-fast-forward)"),  # hz fetched it: git knows it
    ]
    assert friday.pushed is True
    assert _drafts(bare)[friday_ref] == unrelated  # left as it was
    state = git("--git-dir", str(bare), "ls-tree", "-r", "--name-only", "hz/state").splitlines()
    assert len(state) == 6  # both turns' receipts landed all the same
