"""`hz graph --observed`: edges from the receipts on `hz/state`, beside the declared ones.

The first test is a team's first day, all real: two members' `hz tick` processes against a bare remote
behind loopback `git daemon` with hz's hook, a reviewer's squash merge, and the graph read from omar's
clone as his last tick's fetch left it. The others land exact receipts on a repository's own `hz/state`
(tests/graph/state.py) to show what is marked: declared but never observed, observed but not declared.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.gitstate.conftest import bare, loopback  # noqa: F401  (the fixtures, fetched by name below)
from tests.graph.state import land, ran, team_contract
from tests.review.test_approval_bookkeeping import ROSTER, START
from tests.review.test_review_loop import DIGEST
from tests.turn.team_harness import Member, Reviewer, draft_branches, hourly, seed_remote
from tests.turn.test_late_runner import hz as hz_process

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult


def test_a_team_day_shows_the_edge_that_ran(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    remote: Path = request.getfixturevalue("bare")
    url: str = request.getfixturevalue("loopback")
    pulse = hourly("@priya", ["@omar"])
    seed_remote(tmp_path, remote, url, pulse, toml=ROSTER, others={"pulse-digest.prose.md": DIGEST})
    priya, omar = Member.join(tmp_path, "priya", url), Member.join(tmp_path, "omar", url)
    priya.tick(START)  # drafts the 09:00 pulse
    branch = next(b for b in draft_branches(remote) if "/pulse@" in b).removeprefix("refs/heads/")
    Reviewer.join(tmp_path, url, "Rita", "rita@example.com").squash_merge(branch)
    omar.tick(START + timedelta(minutes=20))  # records the approval; the digest's created turn reads it
    omar.tick(START + timedelta(minutes=30))  # the digest's 09:30 turn: its draft replaces the first

    text = hz_process("graph", "--observed", cwd=omar.clone, environ=omar.environ)
    assert (text.returncode, text.stderr) == (0, "")
    lines = text.stdout.splitlines()
    assert lines[:2] == ["0  team:team-pulse", "1  team:pulse-digest  <- team:team-pulse#summary"]  # no hz:my-week
    assert lines[2].startswith("observed on hz/state (10 events, refs/hz/sync/")
    # event times are the tick's moment plus the process's run time: compare to the minute
    assert [re.sub(r"(T\d\d:\d\d):\d\dZ\)$", r"\1Z)", line) for line in lines[3:]] == [
        "  team:team-pulse -> team:pulse-digest  (input pulse, 2 turns, last 2026-11-02T09:30Z)",
        "  team:pulse-digest => state:digest/20261102T0830.md  (draft, last 2026-11-02T09:20Z)",
        "  team:pulse-digest => state:digest/20261102T0930.md  (draft, last 2026-11-02T09:30Z)",
        "  team:team-pulse => state:pulse/20261102T0900.md  (draft, last 2026-11-02T09:00Z)",
    ]

    shown = hz_process("graph", "--observed", "--json", cwd=omar.clone, environ=omar.environ)
    observed = json.loads(shown.stdout)["observed"]
    assert [(r["source"], r["target"], r["declared"]) for r in observed["reads"]] == [
        ("team:team-pulse", "team:pulse-digest", True)
    ]
    assert observed["never_observed"] == []
    (pulse_run,) = observed["runs"]["team:team-pulse"]
    assert (pulse_run["role"], pulse_run["disposition"], pulse_run["cost_usd"]) == ("owner", "drafted", 0.0)
    assert pulse_run["holder"].startswith("@priya/m-")  # the member's machine, from the lease chain
    # the approved pulse is not pending; of the digest's two drafts only the newer holds its branch
    assert [(p["contract"], p["asset"]) for p in observed["pending"]] == [
        ("team:pulse-digest", "state:digest/20261102T0930.md")
    ]

    mermaid = hz_process("graph", "--observed", "--mermaid", cwd=omar.clone, environ=omar.environ).stdout
    assert '  n0 ==>|"observed: pulse"| n1' in mermaid.splitlines()


def test_declared_but_never_observed_and_observed_but_undeclared_are_marked(hz: Hz, repo: Path) -> None:
    flows = repo / "workflows"
    source = team_contract(flows, "source", 1)
    reader = team_contract(flows, "reader", 2, inputs={"src": "contract:team/source#summary", "commits": "git:."})
    team_contract(flows, "idle", 3, inputs={"src": "contract:team/source#summary"})  # declared, never ran
    events = ran(source, "01M6DQS9M0FQR33EQ3KWJSCM4Q", {"commits": "a"})
    events += ran(reader, "01M6DQS9M0FQR33EQ3KWJSCM4R", {"src": "b", "commits": "c", "renamed": "d"}, usd=1.5)
    land(repo, events, {source: ("@ann/m-0000000a", "owner"), reader: ("actions:4242", "actions")})

    result = hz("graph", "--observed")
    assert (result.exit_code, result.err) == (0, "")
    assert result.out.splitlines() == [
        "0  team:source",
        "1  team:idle  <- team:source#summary",
        "1  team:reader  <- team:source#summary",
        "observed on hz/state (6 events, refs/heads/hz/state):",
        "  ?renamed -> team:reader  (input renamed, 1 turns, last 2026-11-02T09:00:00Z)  [not declared]",
        "  git:. -> team:reader  (input commits, 1 turns, last 2026-11-02T09:00:00Z)",
        "  git:log -> team:source  (input commits, 1 turns, last 2026-11-02T09:00:00Z)",
        "  team:source -> team:reader  (input src, 1 turns, last 2026-11-02T09:00:00Z)",
        "  team:reader => state:reports/01M6DQS9M0FQR33EQ3KWJSCM4R.md  (draft, last 2026-11-02T09:00:00Z)",
        "  team:source => state:reports/01M6DQS9M0FQR33EQ3KWJSCM4Q.md  (draft, last 2026-11-02T09:00:00Z)",
        "  team:source -> team:idle#summary  [declared, never observed]",
    ]
    mermaid = hz("graph", "--observed", "--mermaid").out.splitlines()
    assert mermaid[1:4] == ['  n0["team:source"]', '  n1["team:idle"]', '  n2["team:reader"]']
    assert mermaid[4:6] == ["  n0 -->|summary| n1", "  n0 -->|summary| n2"]
    assert '  o0(["?renamed"])' in mermaid and '  o0 ==>|"observed: renamed (not declared)"| n2' in mermaid
    assert mermaid[-2:] == ["  linkStyle 0 stroke:#8c959f,stroke-dasharray:6 4", "  linkStyle 2 stroke:#cf222e"]
    runs = json.loads(hz("graph", "--observed", "--json").out)["observed"]["runs"]
    assert [(r["holder"], r["role"], r["cost_usd"]) for r in runs["team:reader"]] == [("actions:4242", "actions", 1.5)]


def test_without_hz_state_the_graph_says_so(hz: Hz, repo: Path) -> None:
    team_contract(repo / "workflows", "source", 1)
    assert hz("graph", "--observed").out.splitlines() == [
        "0  team:source",
        "observed: no receipts on hz/state yet (a team tick writes them)",
    ]
    assert json.loads(hz("graph", "--observed", "--json").out)["observed"]["events"] == 0
