from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from hz.sources.contract import split_facets
from tests.sources.helpers import commit, days_ago, fetch, git, new_repo

DIGEST = Path(__file__).parents[2] / "workflows" / "weekly-digest.prose.md"


def page(changes: str) -> str:
    return f"# Digest\n\n## summary\n\nA quiet week.\n\n## changes\n\n{changes}\n\n## contributors\n\n- Ana\n"


@pytest.fixture
def team(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "team")
    (repo / "workflows").mkdir()
    shutil.copy(DIGEST, repo / "workflows" / "weekly-digest.prose.md")
    git(repo, "add", "workflows")
    git(repo, "commit", "-q", "-m", "contracts", when=days_ago(20))
    commit(repo, "reports/digest/2026-W47.md", page("- a1 old change"), days_ago(9), "approve W47")
    commit(repo, "reports/digest/2026-W48.md", page("- b2 newer change"), days_ago(2), "approve W48")
    return repo


def test_published_reads_the_newest_approved_file_on_main(team: Path, cache: SourceCache) -> None:
    result = fetch("contract:team/weekly-digest#changes", cache, root=team)
    assert result.facets == {"changes": "- b2 newer change"}


def test_without_a_facet_every_facet_of_the_output(team: Path, cache: SourceCache) -> None:
    result = fetch("contract:team/weekly-digest", cache, root=team)
    assert result.facets == {"summary": "A quiet week.", "changes": "- b2 newer change", "contributors": "- Ana"}


def test_a_working_tree_edit_is_not_published(team: Path, cache: SourceCache) -> None:
    (team / "reports" / "digest" / "2026-W48.md").write_text(page("- unapproved"))
    assert fetch("contract:team/weekly-digest#changes", cache, root=team).facets == {"changes": "- b2 newer change"}


def test_a_change_to_another_facet_does_not_move_this_one(team: Path, tmp_path: Path) -> None:
    before = fetch("contract:team/weekly-digest#changes", SourceCache(tmp_path / "a"), root=team).fingerprints
    commit(team, "reports/digest/2026-W48.md", page("- b2 newer change").replace("quiet", "busy"), days_ago(1), "edit")
    after = fetch("contract:team/weekly-digest#changes", SourceCache(tmp_path / "b"), root=team).fingerprints
    assert after == before


def test_draft_reads_the_newest_draft_branch(team: Path, cache: SourceCache) -> None:
    git(team, "checkout", "-q", "-b", "hz/draft/hz-01KB7M3Q8RZ4W2N6YDXG5T0HCA/2026-11-30T0700Z")
    commit(team, "reports/digest/2026-W49.md", page("- c3 drafted change"), days_ago(0.5), "draft W49")
    git(team, "checkout", "-q", "main")
    result = fetch("contract:team/weekly-digest#changes", cache, root=team, stage="draft")
    assert result.facets == {"changes": "- c3 drafted change"}
    published = fetch("contract:team/weekly-digest#changes", cache, root=team)
    assert published.facets == {"changes": "- b2 newer change"}


def test_no_draft_is_not_found(team: Path, cache: SourceCache) -> None:
    with pytest.raises(SourceError) as caught:
        fetch("contract:team/weekly-digest#changes", cache, root=team, stage="draft")
    assert caught.value.message == (
        "contract:team/weekly-digest#changes: no draft branch holds reports/digest/{slot:%G-W%V}.md"
    )


def test_unknown_contract_and_facet(team: Path, cache: SourceCache) -> None:
    with pytest.raises(SourceError) as caught:
        fetch("contract:team/nothing#changes", cache, root=team)
    assert caught.value.message == "'contract:team/nothing#changes' names a contract that no layer defines"
    with pytest.raises(SourceError) as caught:
        fetch("contract:team/weekly-digest#risks", cache, root=team)
    assert caught.value.message == "contract:team/weekly-digest#risks: team:weekly-digest maintains no facet 'risks'"


def test_nothing_published_yet(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "fresh")
    (repo / "workflows").mkdir()
    shutil.copy(DIGEST, repo / "workflows" / "weekly-digest.prose.md")
    git(repo, "add", "workflows")
    git(repo, "commit", "-q", "-m", "contracts", when=days_ago(20))
    with pytest.raises(SourceError) as caught:
        fetch("contract:team/weekly-digest#changes", cache, root=repo)
    # the reader waits for its upstream, and the path is named as of the reader's slot (NOW), never as a template
    assert caught.value.render() == (
        "error: contract:team/weekly-digest#changes: waiting for an approved team:weekly-digest: "
        "nothing on main at reports/digest/2026-W48.md (nor another slot of it) yet"
    )
    assert caught.value.waiting_for == "team:weekly-digest"


def test_facets_split_on_level_two_and_four_headings() -> None:
    text = "intro\n## Summary\nfirst\n\n#### next-week\n- a\n- b\n## other\nignored? no, part of next_week\n"
    assert split_facets(text, ("summary", "next_week")) == {
        "summary": "first",
        "next_week": "- a\n- b\n## other\nignored? no, part of next_week",
    }


PERSONAL = """---
name: my-notes
kind: responsibility
description: My weekly notes, for tests.
hz:
  schema: 1
  title: My notes
  owner: "@priya"
  scope: personal
  outputs:
    note:
      target: "state:notes/{slot:%G-W%V}.md"
      facets: [summary, risks]
---

# My notes

### Goal

My notes are current.

### Maintains

- `note`: the note.

#### summary

Material: what shipped.

#### risks

Material: what may slip.

### Done when

- [ ] the note says what shipped
"""
TAG = "🧝 DRAFT (my-notes v1): edit, then delete this line to approve · hz-01KB7M3Q8RZ4W2N6YDXG5T0HCA@v1@x"


def test_a_personal_contract_is_read_from_the_working_tree(tmp_path: Path, cache: SourceCache) -> None:
    repo = new_repo(tmp_path / "mine")
    (repo / "workflows").mkdir()
    (repo / "workflows" / "my-notes.prose.md").write_text(PERSONAL)
    (repo / "notes").mkdir()
    (repo / "notes" / "2026-W47.md").write_text("## summary\n\napproved\n\n## risks\n\nnone\n")
    (repo / "notes" / "2026-W48.md").write_text(f"{TAG}\n## summary\n\ndrafted\n\n## risks\n\nsome\n")
    published = fetch("contract:team/my-notes#summary", cache, root=repo)
    draft = fetch("contract:team/my-notes#summary", cache, root=repo, stage="draft")
    assert (published.facets, draft.facets) == ({"summary": "approved"}, {"summary": "drafted"})
    (repo / "notes" / "2026-W48.md").unlink()
    with pytest.raises(SourceError) as caught:
        fetch("contract:team/my-notes#summary", cache, root=repo, stage="draft", force=True)
    assert caught.value.message == (
        "contract:team/my-notes#summary: no draft in the working tree at notes/{slot:%G-W%V}.md"
    )
