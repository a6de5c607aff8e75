"""publish.done on hz/state: receipt-grade (no text), accepted by the state lint when its keys agree,
refused (HZS011) when the envelope's key, the publish key and the draft's contract disagree."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from hz.gitstate.events import Event, PublishDone, path_of
from hz.gitstate.lint import check_event_file
from hz.gitstate.shapes import occasion
from hz.review.publish import done_event, publish_key, target_ref

DRAFT = "hz-01JD0000000000000000000000@v1@2026-12-01T02:00Z@state:reports/w48.md"
KEY = publish_key(DRAFT, "github.issue.comment", "github:acme/site#12")


def done(**change: str) -> PublishDone:
    fields = {"key": KEY, "draft_key": DRAFT, "action": "github.issue.comment", "target": "github:acme/site/issues/12",
              "hash": "sha256:" + "d" * 64, **change}  # fmt: skip
    return PublishDone.model_validate(fields)


def test_a_publish_done_passes_the_lint() -> None:
    event = done_event(done(), ts=datetime(2026, 12, 1, 3, tzinfo=UTC), lease=DRAFT.split("@")[0], token=3)
    assert event.key == f"hz-01JD0000000000000000000000@publish-{KEY}" and occasion(event.key)[0] == "publish"
    assert check_event_file(path_of(event), event.line()) == []


def test_keys_that_disagree_are_hzs011() -> None:
    event = done_event(done(), ts=datetime(2026, 12, 1, 3, tzinfo=UTC), lease=DRAFT.split("@")[0], token=3)
    other = "sha256:" + "e" * 64
    raw = json.loads(event.line())
    raw["key"] = f"{event.id}@publish-{other}"
    forged = Event.parse_obj_checked(raw)
    (finding,) = check_event_file(path_of(forged), forged.line())
    assert finding.code == "HZS011"
    foreign = done(draft_key="hz-01JD0000000000000000000001@v1@2026-12-01T02:00Z@state:reports/w48.md")
    moved = done_event(foreign, ts=datetime(2026, 12, 1, 3, tzinfo=UTC), lease=DRAFT.split("@")[0], token=3)
    raw = json.loads(moved.line())
    raw.update(id=DRAFT.split("@")[0], key=f"{DRAFT.split('@')[0]}@publish-{KEY}")
    forged = Event.parse_obj_checked(raw)
    assert [f.code for f in check_event_file(path_of(forged), forged.line())] == ["HZS011"]


@pytest.mark.parametrize(
    "change",
    [{"target": "github:acme/site#12"}, {"target": "a comment with words"}, {"action": "slack.message.post"},
     {"hash": "all good"}, {"key": DRAFT}],
)  # fmt: skip
def test_no_text_fits_a_publish_done(change: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        done(**change)


def test_targets_become_receipt_refs() -> None:
    assert target_ref("github.issue.comment", "github:acme/site#12") == "github:acme/site/issues/12"
    assert target_ref("jira.issue.comment", "jira:acme/PLAT-7") == "jira:acme/PLAT-7"
    assert target_ref("state.file.write", "state:reports/2026-W49.md") == "state:reports/2026-W49.md"
    long = target_ref("state.file.write", "state:" + "/".join(["d"] * 12) + "/x.md")
    assert long.startswith("state:h-") and done(target=long).target == long
    odd = target_ref("state.file.write", "web.page:" + "x" * 300)
    assert odd.startswith("publish:h-") and done(target=odd).target == odd
