"""`contract:` reading a personal upstream from the working tree, attacked with a planted folder link:
the tree walk took the link's files as the upstream's (a secret from elsewhere on the machine reached the
model). It now reads each file by the repository's path rule, which refuses a link out or into `.git`.
A team upstream's published file is read from main, where anyone can commit a huge one: it is bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hz.repo_paths import MAX_FILE_BYTES
from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources import test_contract_source as upstream
from tests.sources.helpers import commit, days_ago, fetch, new_repo
from tests.sources.test_contract_source import PERSONAL

team = upstream.team  # the fixture: a team repository with the weekly digest published on main
SECRET = "sk-private0notes0from0elsewhere"


def test_a_folder_linked_out_of_the_repository_is_not_the_upstreams(tmp_path: Path, cache: SourceCache) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "2026-W49.md").write_text(f"## summary\n\n{SECRET}\n\n## risks\n\nnone\n")
    repo = new_repo(tmp_path / "mine")
    (repo / "workflows").mkdir()
    (repo / "workflows" / "my-notes.prose.md").write_text(PERSONAL)
    os.symlink(elsewhere, repo / "notes")
    with pytest.raises(SourceError) as caught:
        fetch("contract:team/my-notes#summary", cache, root=repo)
    assert caught.value.message == (
        "contract:team/my-notes#summary: no approved file in the working tree at notes/{slot:%G-W%V}.md"
    )


def test_a_huge_published_upstream_is_not_read_whole(team: Path, cache: SourceCache) -> None:
    commit(team, "reports/digest/2026-W49.md", "## summary\n\n" + "x" * MAX_FILE_BYTES, days_ago(1), "huge")
    with pytest.raises(SourceError) as caught:
        fetch("contract:team/weekly-digest#summary", cache, root=team)
    assert caught.value.render() == (
        "error: reports/digest/2026-W49.md is larger than 1024 KiB\n  hint: split the output"
    )
