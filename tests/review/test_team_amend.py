"""A team contract changes only through `main` (issue 19, finding 5).

The contract takes its owner from `workflows/_defaults.yaml`, as every contract `hz init` scaffolds does:
`hz heinzel amend` compiles the amendment with those defaults (it used to fail with HZC002). Under team
state the amendment goes on its review branch with a pull request; `hz approve` refuses it and the local
version stays; once the pull request is merged, every member's tick moves to the new version. The team
harness: separate `hz` processes, the hook-guarded remote over loopback `git daemon`, the fake GitHub.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.review.fake_forge import FakeForge
from tests.turn.team_harness import Member, draft_branches, hourly, seed_remote
from tests.turn.test_late_runner import CONTRACT_ID, hz

NINE = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
DEFAULTS = 'hz:\n  owner: "@priya"\n'


def version(member: Member) -> int:
    done = hz("heinzel", "list", "--json", cwd=member.clone, environ=member.environ)
    assert done.returncode == 0, done.stderr
    (row,) = [r for r in json.loads(done.stdout) if r["name"].endswith("team-pulse")]
    return int(row["contract"]["version"])


def test_a_team_amendment_goes_through_main_and_moves_every_member(
    tmp_path: Path,
    bare: Path,  # noqa: F811
    loopback: str,  # noqa: F811
    fake_forge: Callable[..., FakeForge],
) -> None:
    contract = hourly("@priya", ["@omar"]).replace('  owner: "@priya"\n', "")  # the owner comes from the defaults
    seed_remote(tmp_path, bare, loopback, contract, others={"_defaults.yaml": DEFAULTS})
    fake = fake_forge(bare)
    priya, omar = Member.join(tmp_path, "priya", loopback), Member.join(tmp_path, "omar", loopback)
    for member in (priya, omar):
        member.environ.update(fake.environ)
        member.tick(NINE)
    assert (version(priya), version(omar)) == (1, 1)

    # priya amends her copy of the file as it is on main, without the owner the defaults give it
    amended = tmp_path / "amended.prose.md"
    text = (priya.clone / "workflows" / "team-pulse.prose.md").read_text(encoding="utf-8")
    amended.write_text(text.replace("drafted every hour.", "drafted every hour, in three lines."), encoding="utf-8")
    done = hz("heinzel", "amend", "team-pulse", "--from", str(amended), "--why", "Shorter pulses.",
              cwd=priya.clone, environ=priya.environ)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    branch = f"hz/draft/{CONTRACT_ID}/contract"
    (pull,) = [p for p in fake.pulls() if p["head"]["ref"] == branch]
    said = re.fullmatch(r"amendment (am-\w+) of (\S+) proposed on (\S+): review its pull request (\S+); once merged "
                        r"on main, every member's tick adopts it\n", done.stdout)  # fmt: skip
    assert said is not None and said.group(3) == branch and said.group(4) == pull["html_url"], done.stdout
    assert f"refs/heads/{branch}" in draft_branches(bare)

    # hz approve does not move the local version: main decides
    approved = hz("approve", said.group(1), cwd=priya.clone, environ=priya.environ)
    assert approved.returncode == 1 and "a team contract is approved on main" in approved.stderr, approved.stderr
    assert version(priya) == 1

    # merged on the forge: every member's next tick moves to v2
    fake.merge(pull["number"], by="omar-gh")
    for member in (priya, omar):
        member.tick(NINE + timedelta(minutes=5))
    assert (version(priya), version(omar)) == (2, 2)
