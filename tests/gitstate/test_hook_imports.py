"""The hook starts fast: judging a push imports neither the event models (pydantic) nor the command line (click).

The push is a real one to a bare remote guarded by the installed hook, whose `main` holds the team's
contract and roster: a draft and its approval, so the lint, the fence, the contracts, the roster and
the receipt rules all run. Python reports every module the hook process imports
(PYTHONPROFILEIMPORTTIME, which git passes on to the hook); none may be pydantic or click.
"""

from __future__ import annotations

import os
import subprocess

from hz.gitstate.events import ApprovalObserved, Event, path_of
from tests.gitstate import plumbing
from tests.gitstate.factory import sha
from tests.gitstate.test_attack_state import AGENT, GOOD_DRAFT, SLOT, Team, team

__all__ = ["team"]


def test_an_accepted_push_imports_no_models_and_no_click(team: Team) -> None:
    approval = ApprovalObserved(key=GOOD_DRAFT.key, asset=GOOD_DRAFT.data["asset"], approver="@rita",
                                share_changed=0.25, output_fp=sha("o"))  # fmt: skip
    approved = Event.make("approval.observed", id=AGENT, key=GOOD_DRAFT.key, ts=SLOT, lease=AGENT, token=1,
                          data=approval)  # fmt: skip
    files = {**team.files, path_of(GOOD_DRAFT): GOOD_DRAFT.line(), path_of(approved): approved.line()}
    tip = plumbing.commit(team.clone, plumbing.tree(team.clone, plumbing.nested(files)), (team.base,),  # type: ignore[arg-type]
                          b"hz-state: 2 events\n")  # fmt: skip
    done = subprocess.run(["git", "-C", str(team.clone), "push", "--porcelain", str(team.remote),
                           f"{tip}:refs/heads/hz/state"], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "import time:" in line]
    assert "hz.gitstate.lint" in imported and "hz.gitstate.receipts" in imported  # it did judge the push
    heavy = sorted({name for name in imported if name.split(".")[0] in ("pydantic", "pydantic_core", "click")})
    assert heavy == []
    assert not any(name.startswith("hz.gitstate.events") or name == "hz.gitstate.types" for name in imported)
    landed = subprocess.run(["git", "--git-dir", str(team.remote), "rev-parse", "hz/state"], capture_output=True,
                            text=True, check=True)  # fmt: skip
    assert landed.stdout.strip() == tip


def test_a_push_of_branches_only_is_judged_by_name_without_pygit2(team: Team) -> None:
    """The team's code goes to the same remote: a branch push reads no object, so it imports no pygit2."""
    tip = plumbing.commit(team.clone, plumbing.tree(team.clone, {b"README.md": b"hello\n"}), (), b"code\n")
    done = subprocess.run(["git", "-C", str(team.clone), "push", "--porcelain", str(team.remote),
                           f"{tip}:refs/heads/feature", f"{tip}:refs/notes/commits"], capture_output=True,
                          text=True, check=False, env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})  # fmt: skip
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "import time:" in line]
    assert "hz.gitstate.hook" in imported and "pygit2" not in imported
    assert done.returncode == 1  # the notes ref is still refused, by name
    assert "HZS016  refs/notes/commits" in done.stderr
