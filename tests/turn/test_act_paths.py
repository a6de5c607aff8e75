"""The act step keeps the repository's path rule: links planted after validation are refused, nothing is
written through them, and validation's verdict on a target is the act step's verdict."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hz.contract.project import compile_repository
from hz.review.drafts import DraftTargetError, expand_target
from hz.review.targets import target_at
from hz.runners.model import ModelRunner
from hz.runners.pricing import Price
from hz.session.spine import SPINE, read_spine
from hz.tick.daemon import tick
from hz.turn import engine
from hz.turn.causes import Cause, coalesce, schedule_key
from tests.deadline import within
from tests.turn.agents import adopt, contract_text, home
from tests.turn.helpers import AGENT, FRIDAY, Clock, deps, journal, plan

PRICE = Price(input=2.0, output=10.0, cached=0.2)


class Model:
    """A test model that drafts, after doing `during_think` (what an attacker does while the model runs)."""

    def __init__(self, during_think: Callable[[], None] = lambda: None) -> None:
        self.calls = 0
        self.during_think = during_think

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        self.during_think()
        drafts = [{"output": "report", "facet": f, "text": f"{f} text"} for f in ("summary", "risks")]
        return ModelResponse(parts=[ToolCallPart("final_result", {"kind": "draft", "report": "r", "drafts": drafts})])


def _turn(root: Path, model: Model, target: str = "file:reports/weekly.md") -> tuple[str, list[Any]]:
    clock = Clock()
    wake = coalesce(AGENT, [Cause("schedule", schedule_key(AGENT, FRIDAY), FRIDAY)])
    runner = ModelRunner(FunctionModel(model), PRICE)
    home = Path(os.environ["HZ_HOME"])
    with journal(home, clock) as j:
        result = engine.start(j, plan(root, targets={"report": target}), wake, deps(clock, runner=runner))
    events = read_spine(home / "heinzel" / AGENT / SPINE).events
    finished = [e.data for e in events if e.kind == "turn.finished"]
    return result.disposition, finished


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    outside.mkdir()
    (outside / "weekly.md").write_text("not hz's to touch\n")
    return root, outside


def test_a_link_planted_before_the_turn_fails_it_before_the_paid_think(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / "reports").symlink_to(outside, target_is_directory=True)
    model = Model()
    disposition, finished = _turn(root, model)
    assert (disposition, model.calls) == ("failed", 0)
    assert finished[-1]["reason"] == "gather"
    assert finished[-1]["error"] == "the target 'file:reports/weekly.md' passes through the link reports"
    assert (outside / "weekly.md").read_text() == "not hz's to touch\n"


@pytest.mark.parametrize(
    ("plant", "error"),
    [
        ("folder", "passes through the link reports"),
        ("file", "passes through the link reports/weekly.md"),
        ("git", "passes through the link reports"),
        ("fifo", "is a FIFO, not a regular file"),
    ],
)
def test_a_link_planted_while_the_model_thinks_is_refused_and_nothing_is_written(
    tree: tuple[Path, Path], plant: str, error: str
) -> None:
    root, outside = tree
    (root / "reports").mkdir()

    def attack() -> None:
        if plant == "folder":
            (root / "reports").rmdir()
            (root / "reports").symlink_to(outside, target_is_directory=True)
        elif plant == "file":
            (root / "reports" / "weekly.md").symlink_to(outside / "weekly.md")
        elif plant == "git":
            (root / "reports").rmdir()
            (root / "reports").symlink_to(root / ".git", target_is_directory=True)
        else:
            os.mkfifo(root / "reports" / "weekly.md")

    model = Model(attack)
    with within(5):
        disposition, finished = _turn(root, model)
    assert (disposition, model.calls) == ("failed", 1)
    assert (finished[-1]["reason"], finished[-1]["error"]) == ("act", f"the target 'file:reports/weekly.md' {error}")
    assert sorted(p.name for p in outside.iterdir()) == ["weekly.md"]
    assert (outside / "weekly.md").read_text() == "not hz's to touch\n"
    assert sorted(p.name for p in (root / ".git").iterdir()) == ["config"]


def test_a_contract_with_a_target_into_git_never_reaches_the_think(repo: Path, hz: Any) -> None:
    config = (repo / ".git" / "config").read_text()
    (repo / "note.prose.md").write_text(contract_text(target="file:.git/config"))
    created = hz("heinzel", "new", "weekly-note", "--from", "note.prose.md")
    assert created.exit_code == 1
    assert "HZC021  hz.outputs.note.target\n  the target 'file:.git/config' names .git" in created.err + created.out
    model = Model()
    tick(root=repo, now=FRIDAY, runner=ModelRunner(FunctionModel(model), PRICE))
    assert model.calls == 0
    assert (repo / ".git" / "config").read_text() == config


def test_an_agent_stored_before_the_rule_never_thinks_with_a_target_into_git(repo: Path) -> None:
    config = (repo / ".git" / "config").read_text()
    agent = adopt(contract_text(), now=FRIDAY)
    stored = home() / "heinzel" / agent / "contract" / "v1.prose.md"
    stored.write_text(stored.read_text().replace("file:notes/{slot:%G-W%V}.md", "file:.git/config"))
    model = Model()
    report = tick(root=repo, now=FRIDAY, runner=ModelRunner(FunctionModel(model), PRICE))
    assert report.woken == [
        {
            "agent": "weekly-note",
            "action": "error",
            "error": "weekly-note v1 does not load: the target 'file:.git/config' names .git, "
            "which hz never reads or writes",
        }
    ]
    assert model.calls == 0
    assert (repo / ".git" / "config").read_text() == config


def test_a_link_planted_over_a_placed_draft_is_never_read_as_its_approval(repo: Path, tmp_path: Path) -> None:
    adopt(contract_text(), now=FRIDAY)
    assert [e["disposition"] for e in tick(root=repo, now=FRIDAY).woken] == ["drafted"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "2026-W44.md").write_text("the key is 1234\n")
    (repo / "notes" / "2026-W44.md").unlink()
    (repo / "notes").rmdir()
    (repo / "notes").symlink_to(outside, target_is_directory=True)
    model = Model()
    later = tick(root=repo, now=FRIDAY.replace(hour=16), runner=ModelRunner(FunctionModel(model), PRICE))
    assert (later.woken, model.calls) == ([], 0)
    assert (outside / "2026-W44.md").read_text() == "the key is 1234\n"


def test_a_team_contract_drafting_a_workflow_is_never_adopted(repo: Path) -> None:
    from hz.heinzel.adopt import adopt as adopt_repository
    from hz.session.store import Store

    (repo / "workflows").mkdir()
    text = contract_text(scope="team", target="state:.github/workflows/release.yml")
    (repo / "workflows" / "weekly-note.prose.md").write_text(text)
    with Store.from_environ() as store:
        found = adopt_repository(store, repo, now=FRIDAY, handle="@priya", environ=os.environ)
        assert [(a.name, a.action) for a in found] == [
            ("weekly-note", "skipped: does not compile (hz workflow validate)")
        ]
        assert store.index.agents() == []


@pytest.mark.parametrize(
    ("scope", "asset", "error"),
    [
        ("team", "state:.github/workflows/x.yml", "is under .github/, where a drafted workflow would run in Actions"),
        ("personal", "state:.gitmodules", "is a git control file (.gitmodules, .gitattributes)"),
        ("personal", "file:/etc/x.md", "is absolute; hz reads and writes only inside the repository"),
    ],
)
def test_the_act_step_refuses_what_validation_refuses(repo: Path, scope: str, asset: str, error: str) -> None:
    with pytest.raises(DraftTargetError) as refused:
        target_at(repo, scope, AGENT, asset, FRIDAY)
    assert refused.value.message.startswith(f"the target {asset!r} {error}")
    assert subprocess.run(["git", "-C", str(repo), "branch", "--list"], capture_output=True).stdout == b""


# Validation and the act step give the same verdict on any target, in a repository without links.
FRAGMENTS = st.sampled_from(
    ["docs", "a.md", "..", ".", "", ".git", ".GIT", ".Git", "git~1", ".git.", ".github", ".GitHub", ".gitmodules",
     ".gitattributes", "workflows", "x\\y", "a\x00", "\n", "\u200c", "ü", " ", "{slot:%G}", "{slot:..}", "C:", "~"]
)  # fmt: skip
CHARS = st.characters(exclude_categories=["Cs"], max_codepoint=0xFFFF)
PATHS = st.one_of(
    st.lists(st.one_of(FRAGMENTS, st.text(CHARS, max_size=4)), min_size=1, max_size=4).map("/".join),
    st.text(CHARS, max_size=12),
    st.lists(FRAGMENTS, max_size=3).map(lambda parts: "/" + "/".join(parts)),
)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("verdicts") / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("a\n")
    (root / "workflows").mkdir()
    return root


def _validates(root: Path, target: str, scope: str) -> bool:
    text = contract_text(scope=scope).replace('"file:notes/{slot:%G-W%V}.md"', json.dumps(target))
    (root / "workflows" / "weekly-note.prose.md").write_text(text)
    compiled = compile_repository(root, {"HZ_CONFIG_HOME": str(root / "no-config")})
    return not any(d.is_error for d in compiled.diagnostics if d.path == "workflows/weekly-note.prose.md")


def _acts(root: Path, target: str, scope: str) -> bool:
    slot = datetime(2026, 10, 30, 15, 0, tzinfo=UTC)
    try:
        target_at(root, scope, AGENT, expand_target(target, slot), slot)
    except DraftTargetError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(path=PATHS, scheme=st.sampled_from(["file", "state"]), scope=st.sampled_from(["personal", "team"]))
def test_validation_and_the_act_step_agree(checkout: Path, path: str, scheme: str, scope: str) -> None:
    target = f"{scheme}:{path}"
    assert _validates(checkout, target, scope) == _acts(checkout, target, scope), (target, scope)


def test_the_verdicts_agree_on_the_cases_of_finding_10(checkout: Path) -> None:
    with tempfile.TemporaryDirectory() as elsewhere:
        cases = ["file:../../x.md", f"file:{elsewhere}/x.md", "state:/etc/x.md", "file:docs/b.md"]
        verdicts = [(_validates(checkout, t, "personal"), _acts(checkout, t, "personal")) for t in cases]
    assert verdicts == [(False, False), (False, False), (False, False), (True, True)]
