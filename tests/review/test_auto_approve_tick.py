"""`auto_approve` at runtime: a live policy on main lets one publish run right after the draft's tick.

@priya's hourly pulse publishes a comment on issue #1 with `auto_approve: pulse-comment`. The 09:00 draft
is the contract's first proposal (creation is a change of intent): it goes to a person. The 10:00 draft
(same contract fingerprint) is granted by a live policy: its comment appears in the very tick that pushed
the draft's branch, and Rita's later squash merge records the approval and comments no second time.
An expired policy, one for another owner, or a contract changed on main before the 10:00 draft grant
nothing: the comment waits for Rita's merge. Real `hz tick` processes, the fake GitHub on loopback.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from hz.gitstate.events import ApprovalObserved, DraftPlaced, Event, PublishDone
from hz.review.auto_publish import corrects
from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.review.test_approval_bookkeeping import ROSTER, START, fates
from tests.turn.team_harness import Member, hourly, seed_remote, state_events
from tests.turn.test_late_runner import git

PUBLISH = (
    "  publishes:\n    - action: github.issue.comment\n      output: pulse\n"
    '      target: "github:team/hz-team#1"\n      auto_approve: pulse-comment\n'
)
POLICY = """\
[policy.pulse-comment]
owner = "{owner}"
action = "github.issue.comment"
scope = "team"
expires = {expires}
"""
HASH = "sha256:" + "c" * 64
LIVE = {"owner": "@priya", "expires": "2026-12-31"}


def on_main(tmp_path: Path, url: str, files: dict[str, str], name: str) -> None:
    """A person's commit of `files` on the remote's main (a fresh clone each time)."""
    clone = tmp_path / f"edit-{name}"
    git("clone", "-q", url, str(clone))
    for path, text in files.items():
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        (clone / path).write_text(text)
    git("add", *files, cwd=clone)
    git("-c", "user.name=Lead", "-c", "user.email=lead@example.com", "commit", "-q", "-m", name, cwd=clone)
    git("push", "-q", "origin", "HEAD:main", cwd=clone)


def pulse_team(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge], policy: dict[str, str]
) -> tuple[Path, str, FakeForge, Member]:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    pulse = hourly("@priya", ["@omar"]).replace("  scope: team\n", "  scope: team\n" + PUBLISH)
    seed_remote(tmp_path, remote, url, pulse, toml=ROSTER)
    on_main(tmp_path, url, {"policies/auto-approve.toml": POLICY.format(**policy)}, "policy")
    fake = fake_forge(remote)
    assert fake.open_issue("Pulse log") == 1
    priya = Member.join(tmp_path, "priya", url)
    priya.environ.update(fake.environ)
    return remote, url, fake, priya


def drafted(member: Member, hours: int) -> None:
    woken = member.tick(START + timedelta(hours=hours))
    assert ("started", "drafted") in [(e["action"], e.get("disposition")) for e in woken], woken


def merge_the_pending_draft(fake: FakeForge, remote: Path) -> str:
    """Rita squash-merges the open pull request of the newest pulse draft (each hour's waits on its own
    branch); the draft key it carried."""
    placed = [e for e in state_events(remote) if e["kind"] == "draft.placed"]
    key = str(max(placed, key=lambda e: e["ts"])["data"]["key"])
    (pull,) = [p for p in fake.pulls() if p["state"] == "open" and key.split("@", 1)[1] in (p["body"] or "")]
    fake.merge(pull["number"], by="rita-gh", method="squash")
    return key


def test_a_live_policy_publishes_right_after_the_drafts_tick_and_the_approval_does_not_again(
    tmp_path: Path, request: pytest.FixtureRequest, fake_forge: Callable[..., FakeForge]
) -> None:
    remote, _url, fake, priya = pulse_team(tmp_path, request, fake_forge, LIVE)
    drafted(priya, 0)
    assert fake.comments(1) == []  # the contract's first proposal goes to a person
    drafted(priya, 1)
    (comment,) = fake.comments(1)  # the tick that pushed the 10:00 draft commented it
    (done,) = fates(remote, "publish.done")
    key = merge_the_pending_draft(fake, remote)
    assert done["data"]["draft_key"] == key and approval_keys(remote) == []
    priya.tick(START + timedelta(hours=1, minutes=20))
    assert approval_keys(remote) == [key]  # the approval is still a person's, recorded as ever
    assert fake.comments(1) == [comment] and len(fates(remote, "publish.done")) == 1


@pytest.mark.parametrize(
    "policy, change",
    [
        pytest.param({**LIVE, "expires": "2026-11-01"}, False, id="expired"),
        pytest.param({**LIVE, "owner": "@omar"}, False, id="another-owner"),
        pytest.param(LIVE, True, id="first-after-a-contract-change"),
    ],
)
def test_no_grant_means_the_publish_waits_for_the_approval(
    tmp_path: Path,
    request: pytest.FixtureRequest,
    fake_forge: Callable[..., FakeForge],
    policy: dict[str, str],
    change: bool,
) -> None:
    remote, url, fake, priya = pulse_team(tmp_path, request, fake_forge, policy)
    drafted(priya, 0)
    if change:  # the intent moved on main: the next proposal goes to a person
        path = "workflows/team-pulse.prose.md"
        text = (Path(priya.clone) / path).read_text().replace("is drafted every hour", "is drafted hourly")
        on_main(tmp_path, url, {path: text}, "pulse: reworded goal")
    drafted(priya, 1)
    assert fake.comments(1) == [] and fates(remote, "publish.done") == []
    key = merge_the_pending_draft(fake, remote)
    priya.tick(START + timedelta(hours=1, minutes=20))
    assert approval_keys(remote) == [key]
    assert len(fake.comments(1)) == 1 and len(fates(remote, "publish.done")) == 1


def approval_keys(remote: Path) -> list[str]:
    return [str(e["data"]["key"]) for e in fates(remote)]


def test_a_redraft_of_an_approved_or_published_job_is_a_correction() -> None:
    ident = "hz-01KC3333333333333333333333"
    common = {"id": ident, "ts": "2026-11-02T10:00:00Z", "lease": ident, "token": 1}

    def placed(version: int, slot: str = "2026-11-02T09:00Z") -> Event:
        key = f"{ident}@v{version}@{slot}@state:pulse/x.md"
        data = DraftPlaced(turn="t-01JD0000000000000000000001", key=key, asset="state:pulse/x.md", hash=HASH)
        return Event.make("draft.placed", key=key, data=data, **common)  # type: ignore[arg-type]

    def approved(draft: Event) -> Event:
        data = ApprovalObserved(key=draft.key, asset="state:pulse/x.md", approver="@rita", share_changed=0.0,
                                output_fp=HASH)  # fmt: skip
        return Event.make("approval.observed", key=draft.key, data=data, **common)  # type: ignore[arg-type]

    def published(draft: Event) -> Event:
        data = PublishDone(key=HASH, draft_key=draft.key, action="github.issue.comment", target="github:a/b/issues/1",
                           hash=HASH)  # fmt: skip
        return Event.make("publish.done", key=f"{ident}@publish-{HASH}", data=data, **common)  # type: ignore[arg-type]

    first, again, later = placed(1), placed(2), placed(2, "2026-11-02T10:00Z")
    assert not corrects([], again)
    assert corrects([approved(first)], again)  # the same slot and asset, drafted again after its approval
    assert corrects([published(first)], again)  # ... or after a policy let its publish out
    assert not corrects([approved(first), published(first)], later)  # another slot is a new job
