"""One resolver for `contract:` references (issue 11, finding 6): what validation accepts, the tick reads.

`contract:platform-report#summary` passed `hz workflow validate` and failed at the tick ("is not
contract:<namespace>/<name>#<facet>"). Both now resolve with `hz.contract.refs.resolve_reference`; the
property below compiles a real repository with a reader contract for each generated reference
(validation, HZC202) and reads the same reference as the tick does (`hz.sources.contract` through the
source cache), and asks that both say yes or both say no.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hz.contract.project import compile_repository
from hz.sources.base import SourceError
from hz.sources.cache import SourceCache
from tests.sources.contracts import contract_text
from tests.sources.helpers import commit, days_ago, fetch, git, new_repo

DIGEST = Path(__file__).parents[2] / "workflows" / "weekly-digest.prose.md"
READER = ".heinzel/workflows/reader.prose.md"


def _page(*facets: str) -> str:
    return "# Page\n\n" + "".join(f"## {facet}\n\n- {facet} of the week\n\n" for facet in facets)


def _platform_report() -> str:
    text = DIGEST.read_text().replace("name: weekly-digest", "name: platform-report")
    text = text.replace("01KB7M3Q8RZ4W2N6YDXG5T0HCA", "01KB7M3Q8RZ4W2N6YDXG5T0HCB")
    text = text.replace("reports/digest/", "reports/platform/")
    return text.replace("facets: [summary, changes, contributors]", "facets: [summary, risks, contributors]").replace(
        "#### changes", "#### risks"
    )


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """Team contracts weekly-digest and platform-report, a project contract my-notes (personal), each with
    every facet published; a project reader whose one input is rewritten for each reference."""
    base = tmp_path_factory.mktemp("resolver")
    repo = new_repo(base / "repo")
    (repo / "workflows").mkdir()
    shutil.copy(DIGEST, repo / "workflows" / "weekly-digest.prose.md")
    (repo / "workflows" / "platform-report.prose.md").write_text(_platform_report())
    (repo / "hz.toml").write_text("[project]\n")
    (repo / ".heinzel" / "workflows").mkdir(parents=True)
    notes = contract_text("my-notes", {"log": {"source": "git:."}})
    notes = notes.replace("notes/my-notes.md", "notes/{slot:%G-W%V}.md")
    (repo / ".heinzel" / "workflows" / "my-notes.prose.md").write_text(notes)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "contracts", when=days_ago(20))
    commit(repo, "reports/digest/2026-W47.md", _page("summary", "changes", "contributors"), days_ago(9), "W47")
    commit(repo, "reports/platform/2026-W47.md", _page("summary", "risks", "contributors"), days_ago(9), "platform W47")
    (repo / "notes").mkdir()
    (repo / "notes" / "2026-W47.md").write_text(_page("summary"))
    config = base / "config"
    config.mkdir()
    yield repo, {**os.environ, "HZ_CONFIG_HOME": str(config), "HZ_HOME": str(base / "home")}


def validation_accepts(repo: Path, environ: dict[str, str], uri: str) -> bool:
    """`hz workflow validate`'s verdict on the reference: no HZC202 on the reader (and nothing else wrong)."""
    (repo / READER).write_text(contract_text("reader", {"upstream": {"source": uri}}))
    compiled = compile_repository(repo, environ, cwd=repo)
    mine = [d for d in compiled.diagnostics if d.path == READER and d.is_error]
    assert all(d.code == "HZC202" for d in mine), mine
    return not mine


def tick_accepts(repo: Path, environ: dict[str, str], uri: str, cache: SourceCache) -> bool:
    """The tick's verdict: the `contract:` source reads the reference (every upstream has its facets published)."""
    try:
        fetch(uri, cache, root=repo, environ=environ, force=True)
    except SourceError:
        return False
    return True


NAMESPACES = st.sampled_from([None, "team", "project", "me", "hz", "ops", "Team", ""])
NAMES = st.sampled_from(["weekly-digest", "platform-report", "my-notes", "nothing", "Weekly-digest", "platform_report"])
FACETS = st.sampled_from([None, "summary", "changes", "risks", "done", "Summary", "x-y", ""])
JUNK = st.text(alphabet="abz-_/#:. 9", max_size=4)


@st.composite
def references(draw: st.DrawFn) -> str:
    namespace, name, facet = draw(NAMESPACES), draw(NAMES), draw(FACETS)
    uri = "contract:" + (f"{namespace}/" if namespace is not None else "") + name
    uri += f"#{facet}" if facet is not None else ""
    return uri + draw(st.one_of(st.just(""), JUNK))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(uri=references())
@example(uri="contract:platform-report#summary")  # the reference of finding 6
@example(uri="contract:team/platform-report#summary")
@example(uri="contract:my-notes")
@example(uri="contract:team/nothing#summary")
@example(uri="contract:weekly-digest#risks")
def test_the_tick_reads_exactly_the_references_validation_accepts(
    repository: tuple[Path, dict[str, str]], tmp_path_factory: pytest.TempPathFactory, uri: str
) -> None:
    repo, environ = repository
    cache = SourceCache(tmp_path_factory.mktemp("cache"))
    assert validation_accepts(repo, environ, uri) == tick_accepts(repo, environ, uri, cache), uri


def test_a_bare_name_reads_the_team_contract(repository: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, environ = repository
    read = fetch("contract:platform-report#summary", SourceCache(tmp_path), root=repo, environ=environ)
    assert read.facets == {"summary": "- summary of the week"}
