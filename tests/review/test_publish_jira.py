"""jira.issue.comment against a local Jira: once per publish key, found by its marker, retried after a
failure, and a `kill -9` between the comment and its receipt leaves one comment and one publish.done."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from hz.gitstate.events import PublishDone
from hz.gitstate.outbox import Outbox
from hz.review.publish import PublishContext, marker, publish_key, run_publishes
from tests.review.fake_jira import FakeJira, serve_jira
from tests.review.publish_child import Spec

DRAFT = "hz-01JD0000000000000000000000@v1@2026-12-01T02:00Z@state:reports/w48.md"
TARGET = "jira:acme/PLAT-7"
TEXT = "## Summary\n\nAll green this week.\n"
ROOT = Path(__file__).resolve().parents[2]


def context(jira: FakeJira, recorded: list[PublishDone], *extra: Spec, **kw: object) -> PublishContext:
    environ = {"HZ_JIRA_BASE": jira.url, "JIRA_TOKEN": "tok-secret-123", **kw.pop("environ", {})}  # type: ignore[dict-item]
    return PublishContext(
        root=ROOT,
        draft_key=DRAFT,
        output="report",
        text=TEXT,
        publishes=[Spec("jira.issue.comment", "report", TARGET), *extra],
        record=recorded.append,
        environ=environ,
        **kw,  # type: ignore[arg-type]
    )


def test_a_comment_is_written_once_and_found_on_a_retry() -> None:
    with serve_jira(FakeJira(issues={"PLAT-7": []}, token="tok-secret-123")) as jira:
        recorded: list[PublishDone] = []
        first = run_publishes(context(jira, recorded))
        again = run_publishes(context(jira, recorded))  # the receipt was lost: the tick runs it again
        assert [r.status for r in first] == ["written"]
        assert [r.status for r in again] == ["found"]
        texts = jira.texts("PLAT-7")
        key = publish_key(DRAFT, "jira.issue.comment", TARGET)
        assert len(texts) == 1 and texts[0].startswith(TEXT.rstrip()) and texts[0].endswith(marker(key) + "\n")
        assert {r.key for r in recorded} == {key} and recorded[0].target == "jira:acme/PLAT-7"
        assert recorded[0].action == "jira.issue.comment" and recorded[0].draft_key == DRAFT


def test_a_recorded_publish_is_not_even_looked_up() -> None:
    with serve_jira(FakeJira(issues={"PLAT-7": []})) as jira:
        key = publish_key(DRAFT, "jira.issue.comment", TARGET)
        results = run_publishes(context(jira, [], done=frozenset({key})))
        assert [r.status for r in results] == ["recorded"] and jira.requests == []


def test_the_marker_is_found_on_a_later_page() -> None:
    key = publish_key(DRAFT, "jira.issue.comment", TARGET)
    old = [{"id": str(i), "body": f"note {i}"} for i in range(5)] + [{"id": "9", "body": f"x\n\n{marker(key)}\n"}]
    with serve_jira(FakeJira(issues={"PLAT-7": old})) as jira:
        assert [r.status for r in run_publishes(context(jira, []))] == ["found"]
        assert len(jira.comments("PLAT-7")) == 6 and sum(m == "GET" for m, _ in jira.requests) == 3


def test_v3_posts_a_document_and_finds_its_marker() -> None:
    with serve_jira(FakeJira(issues={"PLAT-7": []})) as jira:
        environ = {"HZ_JIRA_API": "3"}
        assert [r.status for r in run_publishes(context(jira, [], environ=environ))] == ["written"]
        assert [r.status for r in run_publishes(context(jira, [], environ=environ))] == ["found"]
        (comment,) = jira.comments("PLAT-7")
        assert comment["body"]["type"] == "doc" and all(p == ("POST", "/rest/api/3/issue/PLAT-7/comment")
                                                        for p in jira.requests if p[0] == "POST")  # fmt: skip


def test_one_failing_publish_is_reported_the_others_run_and_it_is_retried() -> None:
    with serve_jira(FakeJira(issues={"PLAT-7": [], "PLAT-8": []})) as jira:
        jira.fail = [500]  # the first request, PLAT-7's lookup
        recorded: list[PublishDone] = []
        other = Spec("jira.issue.comment", "report", "jira:acme/PLAT-8")
        first = run_publishes(context(jira, recorded, other))
        assert [r.status for r in first] == ["failed", "written"]
        assert "Jira" in (first[0].error or "") and "tok-secret-123" not in (first[0].error or "")
        done = frozenset(r.key for r in recorded)
        second = run_publishes(context(jira, recorded, other, done=done))
        assert [r.status for r in second] == ["written", "recorded"]
        assert len(jira.comments("PLAT-7")) == 1 and len(jira.comments("PLAT-8")) == 1


def test_a_malformed_target_fails_alone() -> None:
    with serve_jira(FakeJira(issues={"PLAT-7": []})) as jira:
        broken = Spec("github.issue.comment", "report", "github:acme")
        results = run_publishes(context(jira, [], broken))
        assert [r.status for r in results] == ["written", "failed"] and "names no GitHub issue" in (
            results[1].error or ""
        )


def test_refusals_are_clear_and_never_name_the_token() -> None:
    with serve_jira(FakeJira(issues={"PLAT-7": []}, token="other")) as jira:
        (result,) = run_publishes(context(jira, []))
        assert result.status == "failed" and "refused" in (result.error or "")
        assert "tok-secret-123" not in (result.error or "")
    with serve_jira(FakeJira(issues={})) as jira:
        (result,) = run_publishes(context(jira, []))
        assert result.status == "failed" and "nothing at" in (result.error or "")
    bad = Spec("jira.issue.comment", "report", "jira:acme/not an issue")
    (result,) = run_publishes(PublishContext(ROOT, DRAFT, "report", TEXT, [bad], [].append))
    assert result.status == "failed" and "names no Jira issue" in (result.error or "")


def test_kill_9_between_the_comment_and_its_receipt_leaves_one_of_each(tmp_path: Path) -> None:
    """The child is killed from outside the moment the server has stored its comment, before the answer."""
    child: list[subprocess.Popen[bytes]] = []
    stored = threading.Event()

    def kill_writer() -> None:
        if not stored.is_set():
            stored.set()
            os.kill(child[0].pid, signal.SIGKILL)

    with serve_jira(FakeJira(issues={"PLAT-7": []}, on_write=kill_writer)) as jira:
        args = tmp_path / "args.json"
        args.write_text(json.dumps({
            "root": str(ROOT), "draft_key": DRAFT, "output": "report", "text": TEXT, "outbox": str(tmp_path / "outbox"),
            "publishes": [["jira.issue.comment", "report", TARGET]], "environ": {"HZ_JIRA_BASE": jira.url},
        }))  # fmt: skip
        command = [sys.executable, "-m", "tests.review.publish_child", str(args)]
        child.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL))
        assert child[0].wait(timeout=60) == -signal.SIGKILL and stored.is_set()
        assert len(jira.comments("PLAT-7")) == 1 and Outbox(tmp_path / "outbox").events() == []
        rerun = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=60, check=True)
        assert json.loads(rerun.stdout) == ["found"]
        again = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=60, check=True)
        assert json.loads(again.stdout) == ["recorded"]
    events = Outbox(tmp_path / "outbox").events()
    assert len(jira.comments("PLAT-7")) == 1
    assert [e.kind for e in events] == ["publish.done"]
    assert events[0].data["key"] == publish_key(DRAFT, "jira.issue.comment", TARGET)
