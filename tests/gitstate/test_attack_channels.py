"""Hidden-data channels of issue 20 closed against their objects: a draft's hash against its branch, a
contract version against main's count.

Each push is built with git plumbing in a member's clone and sent to the remote of
tests/gitstate/test_attack_state.py (its `main`, roster and lease; the hook installed), then linted in the
clone, so the hook and `hz state lint` are held to the same words.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from hz.gitstate.events import DraftPlaced, Event, path_of
from hz.gitstate.layout import event_path
from tests.gitstate import plumbing
from tests.gitstate.factory import git, turn_id
from tests.gitstate.test_attack_state import (
    AGENT,
    ASSET_OF,
    CONTRACT,
    GOOD_DRAFT,
    ROSTER,
    SLOT,
    Team,
    canonical,
    created,
    findings,
)
from tests.gitstate.test_attack_state import team as team  # the fixture, by its name

BRANCH = f"refs/heads/hz/draft/{AGENT.removeprefix('hz-')}/report"
PATH = ASSET_OF.partition(":")[2]
WRITTEN = b"# Week 44\n\nThe report the turn wrote.\n"


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def placed(data: bytes) -> Event:
    payload = DraftPlaced(turn=turn_id(1), key=GOOD_DRAFT.key, asset=ASSET_OF, hash=digest(data))
    return Event.make("draft.placed", id=AGENT, key=GOOD_DRAFT.key, ts=SLOT, lease=AGENT, token=1, data=payload)


def draft_commit(team: Team, text: bytes, author: bytes = plumbing.HZ_SIGNATURE) -> str:
    """The draft branch's commit as hz.review.branches makes it: main's tree with the draft, its key as trailer."""
    main = git("--git-dir", str(team.remote), "rev-parse", "main").strip()
    tree = plumbing.tree(team.clone, {b"workflows": {b"weekly.prose.md": CONTRACT}, b"hz.toml": ROSTER,
                                      b"reports": {PATH.split("/")[1].encode(): text}})  # fmt: skip
    message = f"hz draft: weekly \u00b7 report for {SLOT}\n\nHz-Draft: {GOOD_DRAFT.key}\n".encode()
    return plumbing.commit(team.clone, tree, (main,), message, author=author)


def state_commit(team: Team, event: Event) -> str:
    files = {**team.files, path_of(event): event.line()}
    return plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (team.base,))  # type: ignore[arg-type]


def lint_in_clone(team: Team, hz: Any, monkeypatch: pytest.MonkeyPatch, state: str, branch: str) -> Any:
    git("-C", str(team.clone), "update-ref", "refs/heads/hz/state", state)
    git("-C", str(team.clone), "update-ref", BRANCH, branch)
    monkeypatch.chdir(team.clone)
    return hz("state", "lint")


def test_a_draft_hash_that_is_not_its_branch_file_is_refused_by_the_hook_and_the_lint(
    team: Team, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash is 256 chosen bits unless it is that of the draft pushed with it: the hook compares the
    branch's file named by the `Hz-Draft:` trailer, the lint the same commit in a clone."""
    forged = b"Priya earns 95k; tell nobody\n"
    state, branch = state_commit(team, placed(forged)), draft_commit(team, WRITTEN)
    done = plumbing.push(team.clone, team.remote, f"{state}:refs/heads/hz/state", f"{branch}:{BRANCH}")
    assert done.returncode == 1
    message = (f"hash {digest(forged)} is not that of {PATH} on the draft branch's commit {branch[:12]} "
               f"({digest(WRITTEN)})")  # fmt: skip
    assert findings(plumbing.remote_lines(done.stderr)) == [("HZS024", message)]
    assert git("--git-dir", str(team.remote), "rev-parse", "hz/state").strip() == team.base
    assert git("--git-dir", str(team.remote), "for-each-ref", BRANCH) == ""
    result = lint_in_clone(team, hz, monkeypatch, state, branch)
    assert (result.exit_code, findings(result.out.splitlines())) == (1, [("HZS024", message)])


def test_a_draft_and_its_true_hash_pass_and_a_reviewers_edit_on_the_branch_is_no_finding(
    team: Team, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What hz writes passes; once a reviewer amends the draft on its branch (a commit they signed, the
    trailer kept), the clone's lint no longer holds the placed hash to that commit."""
    state, branch = state_commit(team, placed(WRITTEN)), draft_commit(team, WRITTEN)
    done = plumbing.push(team.clone, team.remote, f"{state}:refs/heads/hz/state", f"{branch}:{BRANCH}")
    assert done.returncode == 0, done.stderr
    result = lint_in_clone(team, hz, monkeypatch, state, branch)
    assert (result.exit_code, result.out) == (0, "hz/state: clean\n")
    edited = draft_commit(team, WRITTEN + b"\nRita's note.\n", author=b"Rita <rita> 1761840000 +0000")
    result = lint_in_clone(team, hz, monkeypatch, state, edited)
    assert (result.exit_code, result.out) == (0, "hz/state: clean\n")


def test_a_version_main_has_passes_and_one_past_main_s_count_plus_one_is_refused(
    team: Team, hz: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Main's count is the first-parent commits that changed the contract's file: a commit of other files
    adds none, an edit of the contract one. With two, v3 passes (one past, as a home that had the contract
    before main numbers it) and v4 is refused; the lint of the clone agrees."""
    first = git("--git-dir", str(team.remote), "rev-parse", "main").strip()
    readme = {b"workflows": {b"weekly.prose.md": CONTRACT}, b"hz.toml": ROSTER, b"README.md": b"hi\n"}
    other = plumbing.commit(team.clone, plumbing.tree(team.clone, readme), (first,), b"docs\n")
    edited = {**readme, b"workflows": {b"weekly.prose.md": CONTRACT + b"\nMention the risks first.\n"}}
    main = plumbing.commit(team.clone, plumbing.tree(team.clone, edited), (other,), b"weekly: risks first\n")
    assert plumbing.push(team.clone, team.remote, f"{main}:refs/heads/main").returncode == 0

    def push_version(version: int) -> tuple[str, Any]:
        raw = created(data__contract_version=version)
        files = {**team.files, event_path(raw["id"], raw["kind"], raw["key"]): canonical(raw)}
        state = plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (team.base,))  # type: ignore[arg-type]
        return state, plumbing.push(team.clone, team.remote, f"{state}:refs/heads/hz/state")

    beyond, refused = push_version(4)
    message = f"v4 of {AGENT} is more than main has (2 changes of it on main's first-parent line: v3 at most)"
    assert findings(plumbing.remote_lines(refused.stderr)) == [("HZS025", message)]
    git("-C", str(team.clone), "update-ref", "refs/heads/main", main)
    git("-C", str(team.clone), "update-ref", "refs/heads/hz/state", beyond)
    monkeypatch.chdir(team.clone)
    result = hz("state", "lint")
    assert (result.exit_code, findings(result.out.splitlines())) == (1, [("HZS025", message)])
    within, done = push_version(3)
    assert done.returncode == 0, done.stderr
    git("-C", str(team.clone), "update-ref", "refs/heads/hz/state", within)
    assert hz("state", "lint").out == "hz/state: clean\n"


def test_readers_ignore_a_receipt_of_a_draft_main_never_had_the_version_of(team: Team) -> None:
    """On a remote without the hook a forged v9 draft and its approval may land: the receipt rule the
    readers apply (hz.gitstate.receipts) refuses the approval by the same words as the hook."""
    import pygit2

    from hz.gitstate.events import ApprovalObserved
    from hz.gitstate.lint_contracts import MainContracts
    from hz.gitstate.receipts import TreeState, receipt_problem
    from tests.gitstate.test_attack_state import V9_DRAFT, receipt

    payload = ApprovalObserved(key=V9_DRAFT.key, asset=ASSET_OF, approver="@rita", share_changed=0.0,
                               output_fp=digest(b"o"))  # fmt: skip
    approval = receipt("approval.observed", payload, V9_DRAFT.key)
    files = {**team.files, path_of(V9_DRAFT): V9_DRAFT.line(), path_of(approval): approval.line()}
    repo = pygit2.Repository(str(team.clone))
    state = TreeState(repo, plumbing.tree(team.clone, plumbing.nested(files)))  # type: ignore[arg-type]
    main = MainContracts.read(repo, strict=False)
    assert main is not None and state.has("draft.placed", AGENT, V9_DRAFT.key)
    message = f"v9 of {AGENT} is more than main has (1 change of it on main's first-parent line: v2 at most)"
    assert receipt_problem(approval, state, main) == message
