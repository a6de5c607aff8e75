"""The fake GitHub does to the bare repository what GitHub does: merges by squash, merge commit or rebase
with GitHub as committer, a reviewer's edit on the head branch, closing, deleting a branch."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.review import fake_forge_git as g
from tests.review.conftest import DRAFT
from tests.review.fake_forge import Answer, FakeForge

SUMMARY = "reports/summary.md"


def _show(bare: Path, rev: str, fmt: str) -> str:
    return g.git(bare, "show", "-s", f"--format={fmt}", rev).rstrip("\n")


def _trailers(message: str) -> str:
    done = subprocess.run(
        ["git", "interpret-trailers", "--parse"], input=message, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def fake(fake_forge: Callable[..., FakeForge], forge_bare: Path) -> FakeForge:
    return fake_forge(forge_bare)


def test_a_squash_merge_of_the_draft_alone_keeps_its_trailer_lines(fake: FakeForge) -> None:
    old_main = g.rev(fake.bare, "main")
    number = fake.open_pull(DRAFT, "Weekly report (2026-W45)")
    sha = fake.merge(number, by="rita", method="squash")
    assert g.rev(fake.bare, "main") == sha
    assert _show(fake.bare, sha, "%P") == old_main
    assert _show(fake.bare, sha, "%s") == f"Weekly report (2026-W45) (#{number})"
    assert _show(fake.bare, sha, "%cn <%ce>|%an") == "GitHub <noreply@github.com>|rita"
    message = _show(fake.bare, sha, "%B")
    assert "\n\nHz-Draft: dk-1\nHz-Slot: 2026-W45\nHz-Contract: weekly-report\nHz-Output: summary\n\n" in message
    assert message.endswith("\n\nCo-authored-by: hz <hz>")  # the draft's author is not the merger
    assert _trailers(message) == "Co-authored-by: hz <hz>\n"
    assert g.git(fake.bare, "show", f"{sha}:{SUMMARY}") == "the draft\nsecond line\n"
    pull = fake.pull(number)
    assert (pull["merged"], pull["merged_by"]["login"], pull["merge_commit_sha"], pull["state"]) == (
        True,
        "rita",
        sha,
        "closed",
    )


def test_an_edit_then_squash_lists_each_commit_as_github_does(fake: FakeForge) -> None:
    number = fake.open_pull(DRAFT, "Weekly report")
    edit = fake.edit(number, SUMMARY, "the draft, edited\n", by="rita")
    assert g.rev(fake.bare, DRAFT) == edit and _show(fake.bare, edit, "%an|%cn") == "rita|GitHub"
    sha = fake.merge(number, by="rita")
    message = _show(fake.bare, sha, "%B")
    assert message.startswith(
        f"Weekly report (#{number})\n\n* draft: weekly-report summary for 2026-W45\n\nHz-Draft: dk-1"
    )
    assert message.endswith(f"* Update {SUMMARY}\n\nCo-authored-by: hz <hz>")  # rita merged: not a co-author
    assert "Hz-Draft" not in _trailers(message)  # a reader must look past the last paragraph
    assert g.git(fake.bare, "show", f"main:{SUMMARY}") == "the draft, edited\n"


def test_a_reviewer_may_rewrite_the_squash_message(fake: FakeForge) -> None:
    number = fake.open_pull(DRAFT, "Weekly report")
    sha = fake.edit_and_merge(number, SUMMARY, "edited\n", by="rita", message="Report\n\nHz-Draft: dk-1")
    assert _show(fake.bare, sha, "%B") == "Report\n\nHz-Draft: dk-1"


def test_a_merge_commit_has_both_parents(fake: FakeForge) -> None:
    main, head = g.rev(fake.bare, "main"), g.rev(fake.bare, DRAFT)
    number = fake.open_pull(DRAFT, "Weekly report")
    sha = fake.merge(number, by="rita", method="merge")
    assert _show(fake.bare, sha, "%P") == f"{main} {head}"
    assert _show(fake.bare, sha, "%s") == f"Merge pull request #{number} from team/{DRAFT}"


def test_a_rebase_replays_each_commit_onto_a_moved_base(fake: FakeForge) -> None:
    number = fake.open_pull(DRAFT, "Weekly report")
    fake.edit(number, SUMMARY, "edited\n", by="rita")
    moved = g.put(fake.bare, "main", {"other.md": "meanwhile\n"}, "meanwhile on main")
    sha = fake.merge(number, by="rita", method="rebase")
    replayed = g.git(fake.bare, "rev-list", f"{moved}..{sha}").split()
    assert len(replayed) == 2 and _show(fake.bare, sha, "%an|%cn|%s") == f"rita|GitHub|Update {SUMMARY}"
    first = replayed[1]
    assert _show(fake.bare, first, "%an|%cn") == "hz|GitHub" and "Hz-Draft: dk-1" in _trailers(
        _show(fake.bare, first, "%B")
    )
    assert g.git(fake.bare, "show", f"{sha}:other.md") == "meanwhile\n"
    assert g.git(fake.bare, "show", f"{sha}:{SUMMARY}") == "edited\n"


@pytest.mark.parametrize("method", ["squash", "merge", "rebase"])
def test_a_conflict_refuses_the_merge_and_moves_nothing(fake: FakeForge, method: str) -> None:
    number = fake.open_pull(DRAFT, "Weekly report")
    main = g.put(fake.bare, "main", {SUMMARY: "changed on main\n"}, "conflicting")
    with pytest.raises(Answer) as caught:
        fake.merge(number, by="rita", method=method)
    assert caught.value.status == 405 and g.rev(fake.bare, "main") == main and not fake.pull(number)["merged"]


def test_close_and_delete_branch(fake: FakeForge) -> None:
    number = fake.open_pull(DRAFT, "Weekly report")
    head = g.rev(fake.bare, DRAFT)
    fake.close(number)
    fake.delete_branch(DRAFT)
    assert g.rev(fake.bare, DRAFT) is None
    pull = fake.pull(number)
    assert (pull["state"], pull["merged"], pull["head"]["sha"]) == ("closed", False, head)
    with pytest.raises(Answer):
        fake.merge(number, by="rita")


def test_a_merge_through_the_api_is_by_the_tokens_user(fake: FakeForge) -> None:
    number = fake.open_pull(DRAFT, "Weekly report")
    auth = {"Authorization": f"Bearer {fake.token}"}
    url = f"{fake.url}/repos/{fake.full_name}/pulls/{number}/merge"
    assert httpx.get(url, headers=auth).status_code == 404
    assert httpx.put(url, headers=auth, json={"merge_method": "squash", "sha": "0" * 40}).status_code == 409
    answer = httpx.put(url, headers=auth, json={"merge_method": "squash"})
    assert answer.status_code == 200 and answer.json()["merged"] is True
    assert fake.pull(number)["merged_by"]["login"] == fake.login
    assert httpx.get(url, headers=auth).status_code == 204


def test_pages_carry_link_headers(fake: FakeForge) -> None:
    issue = fake.open_issue("x")
    for n in range(5):
        fake.comment(issue, f"c{n}")
    auth = {"Authorization": f"token {fake.token}"}
    answer = httpx.get(f"{fake.url}/repos/{fake.full_name}/issues/{issue}/comments?per_page=2", headers=auth)
    assert [c["body"] for c in answer.json()] == ["c0", "c1"]
    assert answer.links["next"]["url"].endswith("per_page=2&page=2") and answer.links["last"]["url"].endswith("page=3")
    assert int(answer.headers["x-ratelimit-remaining"]) < 5000 and answer.headers["etag"].startswith('W/"')


def test_before_reply_sees_each_request_after_it_acted(fake: FakeForge) -> None:
    issue = fake.open_issue("x")
    stored: list[int] = []
    fake.before_reply = lambda seen: stored.append(len(fake.comments(issue))) if seen.method == "POST" else None
    answer = httpx.post(
        f"{fake.url}/repos/{fake.full_name}/issues/{issue}/comments",
        headers={"Authorization": f"Bearer {fake.token}"},
        json={"body": "hello"},
    )
    assert answer.status_code == 201 and stored == [1]


def test_a_client_of_another_fake_takes_nothing_queued_and_is_named(
    fake: FakeForge, fake_forge: Callable[..., FakeForge], forge_bare: Path
) -> None:
    """A tick an earlier test left running still asks its own fake's address; once the system gives that
    port to this test's fake, it must neither take this test's queued fault or hostile answer nor pass
    unnoticed: it carries its own fake's token, is refused, and the `fake_forge` fixture fails the test."""
    other = fake_forge(forge_bare)
    assert other.token != fake.token
    fake.fail(500)
    fake.hostile.append(lambda handler: None)
    pulls = f"{fake.url}/repos/{fake.full_name}/pulls"
    assert httpx.get(pulls, headers={"Authorization": f"Bearer {other.token}"}).status_code == 401
    assert (len(fake.faults), len(fake.hostile)) == (1, 1)
    assert [(s.method, s.path, s.status) for s in fake.strangers] == [("GET", "/repos/team/hz-team/pulls", 401)]
    fake.strangers.clear()  # seen: the fixture would fail this test for it
