"""The forge adapter's operations against the fake GitHub: pull requests per draft branch, their state and
merger, comments found by a marker across pages, and conditional requests that cost nothing."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from hz.review.forge import PullRequest, forge_for
from tests.review import fake_forge_git as g
from tests.review.conftest import DRAFT, Rig


def _upsert(rig: Rig, title: str = "Weekly report (2026-W45)", body: str = "body <!-- hz-draft: dk-1 -->",
            labels: tuple[str, ...] = ("hz-draft",), reviewers: tuple[str, ...] = ("ann",)) -> PullRequest:  # fmt: skip
    return rig.forge.upsert_pull(DRAFT, base="main", title=title, body=body, labels=labels, reviewers=reviewers)


def test_upsert_opens_one_pull_request_with_labels_and_reviewers(github: Rig) -> None:
    pr = _upsert(github)
    assert (pr.state, pr.merged, pr.merged_by, pr.merge_commit, pr.head) == ("open", False, None, None, DRAFT)
    assert pr.url == f"https://github.com/team/hz-team/pull/{pr.number}"
    shown = github.fake.pull(pr.number)
    assert shown["title"] == "Weekly report (2026-W45)"
    assert [label["name"] for label in shown["labels"]] == ["hz-draft"]
    assert [user["login"] for user in shown["requested_reviewers"]] == ["ann"]


def test_upsert_updates_the_open_pull_request_instead_of_opening_another(github: Rig) -> None:
    first = _upsert(github)
    g.put(github.fake.bare, DRAFT, {"reports/summary.md": "a newer draft\n"}, "draft 2\n\nHz-Draft: dk-2")
    second = _upsert(github, title="Weekly report (2026-W46)", body="newer <!-- hz-draft: dk-2 -->")
    assert second.number == first.number
    assert len(github.fake.pulls()) == 1
    assert github.fake.pull(first.number)["title"] == "Weekly report (2026-W46)"
    assert second.body == "newer <!-- hz-draft: dk-2 -->"


def test_an_unchanged_upsert_costs_one_conditional_request_answered_304(github: Rig) -> None:
    _upsert(github)
    _upsert(github)  # settles the list's ETag after the first upsert's writes changed it
    before, remaining = len(github.fake.requests), github.fake.remaining
    again = _upsert(github)
    seen = github.fake.requests[before:]
    assert [(s.method, s.status, s.conditional) for s in seen] == [("GET", 304, True)]
    assert github.fake.remaining == remaining  # a 304 does not count against the rate limit
    assert again.number == 1


def test_reading_a_pull_request_twice_reuses_the_etag(github: Rig) -> None:
    number = _upsert(github).number
    assert github.forge.pull(number) == github.forge.pull(number)
    reads = [s for s in github.fake.requests if s.path == f"/repos/team/hz-team/pulls/{number}"]
    assert [(s.status, s.conditional) for s in reads] == [(200, False), (304, True)]


def test_a_reviewer_github_refuses_is_reported_and_the_others_are_asked(
    github: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    github.fake.unrequestable = {"outsider"}
    with caplog.at_level(logging.WARNING, logger="hz.review.forge_github"):
        pr = _upsert(github, reviewers=("ann", "outsider", "hz-bot"))  # hz-bot is the author: never asked
    assert pr.unrequested == ("outsider",)
    assert [u["login"] for u in github.fake.pull(pr.number)["requested_reviewers"]] == ["ann"]
    assert "outsider" in caplog.text


def test_pull_for_branch_reads_the_merger_and_the_merge_commit(github: Rig) -> None:
    number = _upsert(github).number
    sha = github.fake.edit_and_merge(number, "reports/summary.md", "edited by the reviewer\n", by="rita")
    pr = github.forge.pull_for_branch(DRAFT)
    assert pr is not None
    assert (pr.number, pr.state, pr.merged, pr.merged_by, pr.merge_commit) == (number, "closed", True, "rita", sha)
    assert g.git(github.fake.bare, "rev-parse", "main").strip() == sha


def test_pull_for_branch_takes_the_newest_and_says_none_without_one(github: Rig) -> None:
    assert github.forge.pull_for_branch(DRAFT) is None
    first = _upsert(github).number
    github.forge.close_pull(first)
    second = _upsert(github).number  # the closed one is not updated: a new pull request opens
    assert second != first
    pr = github.forge.pull_for_branch(DRAFT)
    assert pr is not None and (pr.number, pr.state) == (second, "open")


def test_close_pull_closes_without_merging(github: Rig) -> None:
    number = _upsert(github).number
    github.forge.close_pull(number)
    pr = github.forge.pull(number)
    assert pr is not None and (pr.state, pr.merged, pr.merged_by, pr.merge_commit) == ("closed", False, None, None)


def test_a_missing_pull_request_is_none(github: Rig) -> None:
    assert github.forge.pull(404) is None


def test_create_pull_for_a_publish(github: Rig) -> None:
    g.put(github.fake.bare, "hz/publish/x", {"out.md": "published\n"}, "publish", start="main")
    pr = github.forge.create_pull("hz/publish/x", base="main", title="Publish", body="<!-- hz-publish: p1 -->")
    assert (pr.head, pr.state, pr.body) == ("hz/publish/x", "open", "<!-- hz-publish: p1 -->")


def test_comments_are_added_and_found_by_marker_across_pages(github: Rig) -> None:
    issue = github.fake.open_issue("Platform report")
    for n in range(230):
        github.fake.comment(issue, f"chatter {n}", by="someone")
    assert github.forge.find_comment(issue, "<!-- hz-publish: k9 -->") is None
    made = github.forge.add_comment(issue, "the report\n<!-- hz-publish: k9 -->")
    before = len(github.fake.requests)
    assert github.forge.find_comment(issue, "<!-- hz-publish: k9 -->") == made
    pages = [s for s in github.fake.requests[before:] if "/comments" in s.path]
    assert len(pages) == 3  # 231 comments, 100 a page, each page's Link followed
    assert github.fake.comments(issue)[-1]["id"] == made


def test_the_fake_answers_the_fields_the_adapter_reads(github: Rig) -> None:
    """GitHub's documented schema: a pull request has number, html_url, state, merged, merged_by.login,
    merge_commit_sha, head.ref, body; a listed one lacks merged and merged_by; a comment has id and body."""
    number = _upsert(github).number
    github.fake.merge(number, by="rita")
    full = github.fake.pull(number)
    for name in ("number", "html_url", "state", "merged", "merged_by", "merge_commit_sha", "head", "body"):
        assert name in full, name
    assert full["merged_by"]["login"] == "rita" and full["head"]["ref"] == DRAFT
    assert isinstance(full["number"], int) and full["state"] in ("open", "closed") and full["merged"] is True
    listed = github.forge.http.get("repos/team/hz-team/pulls?state=all").data[0]
    assert "merged" not in listed and "merged_by" not in listed and listed["merged_at"] is not None
    issue = github.fake.open_issue("x")
    github.forge.add_comment(issue, "hi")
    comment = github.fake.comments(issue)[0]
    assert isinstance(comment["id"], int) and comment["body"] == "hi"


def test_forge_for_talks_to_the_fake_from_the_environment(github: Rig, tmp_path: Path) -> None:
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    forge = forge_for(work, github.fake.environ)
    assert forge is not None
    pr = forge.upsert_pull(DRAFT, base="main", title="T", body="B", labels=(), reviewers=())
    assert forge.pull_for_branch(DRAFT) == pr
