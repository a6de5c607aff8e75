"""Messages that said something else than what was wrong: each now names the problem and a fix that
exists (a command hz has, a file the user has)."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hz.contract.load import load_contract, load_text
from hz.contract.project import compile_repository
from hz.sources import git
from hz.sources.base import FetchContext, SourceError, SourceSpec
from hz.sources.cache import SourceCache
from hz.sources.resolve import resolve

from .samples import GOOD, line_of, variant

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _context(root: Path | None) -> FetchContext:
    return FetchContext(slot=NOW, now=NOW, environ={}, root=root)


def _with_source(uri: str) -> str:
    return variant('source: "git:log"', f'source: "{uri}"')


def _stage3(repo: Path, text: str) -> list[tuple[str, str, str]]:
    (repo / "workflows").mkdir(exist_ok=True)
    (repo / "workflows" / "weekly-digest.prose.md").write_text(text)
    compiled = compile_repository(repo, {"HZ_CONFIG_HOME": str(repo / "no-config")})
    return [(d.code, d.message, d.hint) for d in compiled.diagnostics if d.path.startswith("workflows/")]


def test_a_feed_url_without_protocol_is_told_so(repo: Path) -> None:
    [(code, message, hint)] = _stage3(repo, _with_source("feed://host/x.xml"))
    assert code == "HZC022"
    assert "outside the repository" not in message and "has no protocol" in message
    assert hint.startswith("write feed:https://host/x.xml")
    with pytest.raises(SourceError) as refused:
        resolve(SourceSpec("feed://host/x.xml"), SourceCache(repo / "cache"), slot=NOW, now=NOW, environ={}, root=repo)
    assert "has no protocol" in refused.value.message and "outside" not in refused.value.message


@pytest.mark.parametrize("root", [None, "repo"])
def test_a_remote_git_url_is_told_so(repo: Path, root: str | None) -> None:
    [(code, message, hint)] = _stage3(repo, _with_source("git:https://example.invalid/o/r.git"))
    assert code == "HZC022" and "names a remote repository" in message and "git:." in hint
    spec = SourceSpec("git:https://example.invalid/o/r.git", window=timedelta(days=7))
    with pytest.raises(SourceError) as refused:
        resolve(spec, SourceCache(repo / "cache"), slot=NOW, now=NOW, environ={}, root=repo if root else None)
    assert "needs a repository" not in refused.value.message
    assert "names a remote repository" in refused.value.message


def test_an_unknown_branch_is_not_an_empty_repository(repo: Path) -> None:
    (repo / "a.txt").write_text("a\n")
    subprocess.run(["git", "-C", str(repo), "add", "a.txt"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "a"], check=True)
    spec = SourceSpec("git:.", query="branch:nope", window=timedelta(days=7))
    with pytest.raises(SourceError) as refused:
        git.fetch(spec, _context(repo))
    assert "no branch 'nope'" in refused.value.message
    assert "commit something first" not in (refused.value.hint or "")
    assert "git branch -a" in (refused.value.hint or "")


@pytest.mark.parametrize("kind", ["gateway", "function", "bogus"])
def test_kind_errors_carry_a_hint(kind: str) -> None:
    [problem] = load_text(variant("kind: responsibility", f"kind: {kind}")).diagnostics
    assert problem.code == "HZC002" and problem.loc == "kind"
    assert problem.hint
    assert "responsibility" in problem.hint or "hz.inputs" in problem.hint


def test_a_missing_key_points_at_the_schema_the_package_ships() -> None:
    [problem] = load_text(variant("  title: Weekly change digest\n", "")).diagnostics
    assert "docs/schemas" not in problem.hint
    [path] = re.findall(r"(/\S+\.json)", problem.hint)
    assert Path(path).is_file()


def test_a_newer_schema_names_no_command_hz_lacks() -> None:
    [problem] = load_text(variant("schema: 1", "schema: 9")).diagnostics
    assert problem.code == "HZC003" and "hz system" not in problem.hint and "upgrade hz" in problem.hint


def test_no_hint_points_at_a_file_of_the_source_tree(tmp_path: Path) -> None:
    from .corpus_odd import SHAPES

    for name, make in SHAPES.items():
        path = tmp_path / f"{name}.prose.md"
        path.write_bytes(make(name))
        for problem in load_contract(path).diagnostics:
            assert "docs/" not in problem.hint, (name, problem.render())


def test_frontmatter_and_body_errors_come_in_one_run() -> None:
    done = "### Done when\n\n- [ ] every commit of the week appears once\n"
    text = variant("window: 7d", "window: soon", variant(done, "### Criteria\n\nIt reads well.\n"))
    codes = [d.code for d in load_text(text).diagnostics]
    assert "HZC002" in codes and "HZC106" in codes and "HZC107" in codes


def test_broken_yaml_still_gets_its_body_checked() -> None:
    text = variant("on: [commits]", "on: [commits", variant("### Goal", "### Strategies"))
    codes = [d.code for d in load_text(text).diagnostics]
    assert codes[0] == "HZC001" and "HZC106" in codes


def test_one_heading_above_the_sections_is_explained_once() -> None:
    text = variant("### Requires", "## Background\n\nWhy this exists.\n\n### Requires")
    result = load_text(text)
    assert result.contract is not None, [d.render() for d in result.diagnostics]
    [shift] = result.diagnostics
    assert (shift.code, shift.severity, shift.line) == ("HZC105", "warning", line_of("## Background", text))
    assert "one level above the sections, which are written as ###" in shift.message
    assert shift.hint.startswith("write it as ### Background")
    assert set(result.contract.sections) == set(load_text(GOOD).contract.sections)  # type: ignore[union-attr]


def test_a_known_section_one_level_too_high_is_still_that_section() -> None:
    text = variant("### Done when", "## Done when")
    result = load_text(text)
    assert result.contract is not None and "done when" in result.contract.sections
    assert [d.code for d in result.diagnostics] == ["HZC105"]


@pytest.mark.parametrize("goal", ["Report 4 is current and agrees with the week.", "Build logs stay under 1 GB."])
def test_a_goal_whose_first_word_is_a_noun_is_no_activity(goal: str) -> None:
    text = variant("The digest for the past ISO week lists every change merged to main.", goal)
    assert load_text(text).diagnostics == ()


def test_every_stage_reports_in_one_run(repo: Path) -> None:
    done = "### Done when\n\n- [ ] every commit of the week appears once\n"
    text = variant('source: "git:log"', 'source: "nope:x"', variant(done, ""))
    codes = {code for code, _, _ in _stage3(repo, text)}
    assert {"HZC107", "HZC015"} <= codes  # the body (stage 2) and the registry (stage 3) together
