"""`contract:` inputs read the remote's main as the tick fetched it (issue 11, finding 1).

A reviewer merges on the remote; the member never pulls. After the tick's one fetch
(`hz.review.sync.fetch_team`) the downstream contract reads the approved text, and with `stage: draft`
the remote's draft branch, from hz's copies; without `[state]` a lone user's own main stays the truth.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hz.review.sync import fetch_team
from hz.sources.cache import SourceCache
from tests.sources.helpers import commit, days_ago, git, new_repo
from tests.sources.helpers import fetch as read

DIGEST = Path(__file__).parents[2] / "workflows" / "weekly-digest.prose.md"
CONTRACT_ID = "01KB7M3Q8RZ4W2N6YDXG5T0HCA"  # weekly-digest's id


def page(changes: str) -> str:
    return f"# Digest\n\n## summary\n\nA week.\n\n## changes\n\n{changes}\n\n## contributors\n\n- Ana\n"


def team(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the bare remote, a member's clone, a reviewer's clone), main holding [state] and weekly-digest."""
    bare = tmp_path / "team.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(bare, "symbolic-ref", "HEAD", "refs/heads/main")
    seed = new_repo(tmp_path / "seed")
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    (seed / "workflows").mkdir()
    shutil.copy(DIGEST, seed / "workflows" / "weekly-digest.prose.md")
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "team", when=days_ago(20))
    commit(seed, "reports/digest/2026-W47.md", page("- a1 old change"), days_ago(9), "approve W47")
    git(seed, "push", "-q", str(bare), "main")
    member, reviewer = tmp_path / "member", tmp_path / "reviewer"
    git(tmp_path, "clone", "-q", str(bare), str(member))
    git(tmp_path, "clone", "-q", str(bare), str(reviewer))
    return bare, member, reviewer


def test_a_merge_on_the_remote_is_read_after_the_ticks_fetch_with_no_pull(tmp_path: Path) -> None:
    bare, member, reviewer = team(tmp_path)
    commit(reviewer, "reports/digest/2026-W48.md", page("- b2 merged on the forge"), days_ago(2), "approve W48")
    git(reviewer, "push", "-q", "origin", "main")
    fetch_team(member, str(bare))  # the tick's one fetch
    result = read("contract:team/weekly-digest#changes", SourceCache(tmp_path / "cache"), root=member)
    assert result.facets == {"changes": "- b2 merged on the forge"}
    assert git(member, "rev-parse", "main") != git(reviewer, "rev-parse", "main")  # nobody pulled


def test_a_draft_on_the_remote_is_read_after_the_ticks_fetch(tmp_path: Path) -> None:
    bare, member, reviewer = team(tmp_path)
    git(reviewer, "checkout", "-q", "-b", f"hz/draft/{CONTRACT_ID}/digest")
    commit(reviewer, "reports/digest/2026-W49.md", page("- c3 drafted"), days_ago(0.5), "draft W49")
    git(reviewer, "push", "-q", "origin", f"hz/draft/{CONTRACT_ID}/digest")
    fetch_team(member, str(bare))
    result = read("contract:team/weekly-digest#changes", SourceCache(tmp_path / "cache"), root=member, stage="draft")
    assert result.facets == {"changes": "- c3 drafted"}
