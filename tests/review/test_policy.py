"""Auto-approval at runtime: granted only by a live policy on main that matches owner, action and scope,
never for the first proposal after the contract changed, never for a correction; the policy file,
however malformed, is a clear problem and never a crash."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hz.contract.policy import parse_policies
from hz.gitstate.events import DraftPlaced, Event, TurnStarted
from hz.review.policy import Asker, decide, first_after_change, granted, policies_on
from tests.review.publish_setup import git, team_repo

NOW = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
ASKER = Asker("team:weekly", "@alice", "team")
POLICY = """\
[policy.weekly-comment]
owner = "@alice"
action = "github.issue.comment"
scope = "{scope}"
expires = {expires}
"""


@dataclass(frozen=True)
class Pub:
    action: str = "github.issue.comment"
    target: str = "github:team/hz-team#7"
    auto_approve: str | None = "weekly-comment"


def policies(scope: str = "team", expires: str = "2026-12-31", owner: str = "@alice", action: str = "") -> object:
    text = POLICY.format(scope=scope, expires=expires).replace('"@alice"', f'"{owner}"')
    if action:
        text = text.replace('"github.issue.comment"', f'"{action}"')
    return parse_policies(text.encode())


def run(pub: Pub = Pub(), *, first: bool = False, correction: bool = False, **kw: str):  # type: ignore[no-untyped-def]
    return decide(pub, ASKER, policies(**kw), now=NOW, first_after_change=first, correction=correction)  # type: ignore[arg-type]


def test_a_live_matching_policy_grants() -> None:
    decision = run()
    assert decision.granted and decision.hzc018 is None and "weekly-comment" in decision.reason


def test_a_target_glob_as_scope_grants_only_matching_targets() -> None:
    assert run(scope="github:team/hz-team#*").granted
    refused = run(scope="github:team/other#*")
    assert not refused.granted and "covers targets github:team/other#*" in refused.reason


def test_expired_wrong_owner_wrong_action_wrong_scope_are_refused_with_hzc018() -> None:
    cases = {
        "expired at 2026-12-01T00:00:00+00:00": run(expires="2026-11-30"),
        "is for owner @bob, not @alice": run(owner="@bob"),
        "is for action jira.issue.comment, not github.issue.comment": run(action="jira.issue.comment"),
        "is for scope personal, not team": run(scope="personal"),
    }
    for words, decision in cases.items():
        assert not decision.granted and words in decision.reason
        assert decision.hzc018 is not None and decision.hzc018[0].endswith("publishing falls back to manual approval")
    missing = run(Pub(auto_approve="nope"))
    assert not missing.granted and missing.hzc018 is not None and "no policy 'nope'" in missing.hzc018[0]


def test_never_for_the_first_proposal_after_a_change_nor_for_a_correction() -> None:
    first = run(first=True)
    assert not first.granted and "first proposal after the contract changed" in first.reason
    correction = run(correction=True)
    assert not correction.granted and "correction" in correction.reason
    assert granted([Pub(), Pub(auto_approve=None)], ASKER, policies(), now=NOW,  # type: ignore[arg-type]
                   first_after_change=False, correction=False) == [Pub()]  # fmt: skip
    assert not run(Pub(auto_approve=None)).granted


ID = "hz-01JD0000000000000000000000"
FP_A, FP_B = "sha256:" + "a" * 64, "sha256:" + "b" * 64


def proposal(n: int, fp: str) -> list[Event]:
    turn, slot = f"t-01JD00000000000000000000{n:02d}", f"2026-11-{n:02d}T09:00Z"
    key = f"{ID}@v1@{slot}@state:reports/w.md"
    common = {"id": ID, "ts": f"2026-11-{n:02d}T09:00:0{n % 10}Z", "lease": ID, "token": 1}
    start = TurnStarted(turn=turn, cause="schedule", keys=[f"{ID}@{slot}"], contract_version=1, contract_fp=fp,
                        token=1, role="owner")  # fmt: skip
    placed = DraftPlaced(turn=turn, key=key, asset="state:reports/w.md", hash="sha256:" + "c" * 64)
    return [Event.make("turn.started", key=f"{ID}@{slot}", data=start, **common),  # type: ignore[arg-type]
            Event.make("draft.placed", key=key, data=placed, **common)]  # type: ignore[arg-type]  # fmt: skip


def test_first_after_change_reads_the_fingerprints_of_earlier_proposals() -> None:
    one, two, three = proposal(1, FP_A), proposal(2, FP_A), proposal(3, FP_B)
    events = [*one, *two, *three]
    assert first_after_change(events, one[1].data["key"], FP_A)  # the contract's very first proposal
    assert not first_after_change(events, two[1].data["key"], FP_A)  # the intent did not move since one
    assert first_after_change(events, three[1].data["key"], FP_B)  # the intent moved: a person approves


def test_the_policy_is_read_from_main_not_the_work_tree(tmp_path: Path) -> None:
    _bare, clone = team_repo(tmp_path)
    (clone / "policies").mkdir()
    (clone / "policies" / "auto-approve.toml").write_text(POLICY.format(scope="team", expires="2026-12-31"))
    head = git("rev-parse", "HEAD", cwd=clone)
    on_main = policies_on(clone, head)
    assert on_main.policies == {} and on_main.problem is None  # a member's uncommitted grant grants nothing
    git("add", "policies/auto-approve.toml", cwd=clone)
    git("commit", "-q", "-m", "policy", cwd=clone)
    assert "weekly-comment" in policies_on(clone, git("rev-parse", "HEAD", cwd=clone)).policies


def test_a_syntax_error_names_its_line() -> None:
    broken = parse_policies(b'[policy.x]\nowner = "@alice"\naction = \n')
    assert broken.policies == {} and broken.problem is not None and "line 3" in broken.problem
    refusal = broken.refusal("x", contract="team:w", owner="@alice", action="a.b", scope="team", target="t:x", now=NOW)
    assert refusal is not None and refusal.startswith("policies/auto-approve.toml cannot be used:")


_LINES = st.sampled_from([
    "[policy.p]", "[policy]", "[[policy]]", "[other]", "[policy.p.q]", 'owner = "@alice"', "owner = 1",
    'owner = "alice"', 'action = "github.issue.comment"', "action = []", 'scope = "team"', 'scope = "state:*"',
    "expires = 2026-12-31", "expires = 2026-12-31T10:00:00Z", "expires = 10:00:00", "expires = 2026-12-31T10:00:00",
    'expires = "2026-12-31"', "contracts = [1]", 'contracts = ["team:w"]', "contracts = {}", "policy = 3",
    "x = [[[[[[", '"unterminated', "= 1", "p.q.r = 1", 'extra = "x"', "", "# comment", "\x00", "[policy.p]\n[policy.p]",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, max_size=12))
def test_any_document_made_of_policy_fragments_is_policies_or_a_problem(lines: list[str]) -> None:
    parsed = parse_policies("\n".join(lines).encode())
    assert (parsed.problem is None) or (parsed.policies == {} and parsed.problem.strip())
    for policy in parsed.policies.values():  # what was accepted is whole: every field typed and present
        assert policy.owner.startswith("@") and policy.expires.tzinfo is not None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_any_bytes_are_policies_or_a_problem_never_a_crash(raw: bytes) -> None:
    parsed = parse_policies(raw)
    assert parsed.problem is None or parsed.policies == {}
    if parsed.problem is not None:
        parsed.refusal("p", contract="team:w", owner="@a", action="a.b", scope="team", target="t:x", now=NOW)


@dataclass(frozen=True)
class Full:
    action: str
    output: str
    target: str
    auto_approve: str | None = None


def test_a_granted_publish_runs_before_the_merge_and_not_again_after_it() -> None:
    """The grant covers that one publish, on the draft's text; the approval later runs only the others."""
    from hz.gitstate.events import PublishDone
    from hz.review.publish import PublishContext, run_publishes
    from tests.review.fake_jira import FakeJira, serve_jira

    text = POLICY.format(scope="jira:acme/*", expires="2026-12-31").replace(
        "github.issue.comment", "jira.issue.comment"
    )
    publishes = [Full("jira.issue.comment", "report", "jira:acme/PLAT-7", "weekly-comment"),
                 Full("jira.issue.comment", "report", "jira:acme/PLAT-8")]  # fmt: skip
    draft = f"{ID}@v1@2026-12-01T02:00Z@state:reports/w.md"
    with serve_jira(FakeJira(issues={"PLAT-7": [], "PLAT-8": []})) as jira:
        early = granted(publishes, ASKER, parse_policies(text.encode()), now=NOW, first_after_change=False,
                        correction=False)  # fmt: skip
        assert early == publishes[:1]
        recorded: list[PublishDone] = []

        def ctx(specs: list[Full], body: str) -> PublishContext:
            done = frozenset(r.key for r in recorded)
            environ = {"HZ_JIRA_BASE": jira.url}
            return PublishContext(Path("."), draft, "report", body, specs, recorded.append, environ=environ, done=done)

        assert [r.status for r in run_publishes(ctx(early, "as drafted"))] == ["written"]  # placed: no merge yet
        after = run_publishes(ctx(publishes, "as merged, edited"))  # the approval, later
        assert [r.status for r in after] == ["recorded", "written"]
        assert "as drafted" in jira.texts("PLAT-7")[0] and "as merged, edited" in jira.texts("PLAT-8")[0]


def test_validation_and_the_runtime_say_the_same_hzc018(repo: Path) -> None:
    import os

    from hz.contract.policy import load_policies
    from hz.contract.project import compile_repository
    from tests.compile.contracts import write

    (repo / "policies").mkdir()
    glob = POLICY.format(scope="state:reports/*", expires="2026-12-31").replace(
        "github.issue.comment", "state.file.write"
    )
    (repo / "policies" / "auto-approve.toml").write_text(glob.replace("weekly-comment", "digest-auto"))
    extra = "  publishes:\n    - action: state.file.write\n      output: page\n      target: state:out/page.md\n" \
            "      auto_approve: digest-auto\n"  # fmt: skip
    write(repo / "workflows", "digest", extra=extra)
    compiled = compile_repository(repo, os.environ, now=NOW, cwd=repo)
    (said,) = [d for d in compiled.diagnostics if d.code == "HZC018"]
    contract = compiled.get("team:digest").contract
    assert contract is not None
    hz = contract.frontmatter.hz
    asker = Asker(contract.qualified_name, str(hz.owner), str(hz.scope))
    decision = decide(hz.publishes[0], asker, load_policies(repo), now=NOW, first_after_change=False, correction=False)
    assert not decision.granted and decision.hzc018 == (said.message, said.hint)
    assert "covers targets state:reports/*, not state:out/page.md" in said.message
