"""Layers, namespaces, overrides and collisions (HZC301, HZC302), `_defaults.yaml`, bare-name resolution."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hz.config import config_home
from hz.contract.layers import Layer, discover_layers
from hz.contract.names import AmbiguousContract, UnknownContract
from hz.contract.project import Compiled, compile_repository
from hz.diagnostic import Diagnostic

from .contracts import contract, line_of, write


def compile_here(root: Path, *modules: Layer) -> Compiled:
    layers = [layer for layer in discover_layers(root, os.environ, cwd=root) if layer.kind != "module"]
    return compile_repository(root, os.environ, cwd=root, layers=[*layers, *modules])


def module(tmp_path: Path, namespace: str) -> Layer:
    directory = tmp_path / "modules" / namespace / "workflows"
    directory.mkdir(parents=True)
    return Layer("module", namespace, directory, None)


def user_dir() -> Path:
    return config_home(os.environ) / "workflows"


def project_dir(repo: Path) -> Path:
    (repo / "hz.toml").write_text("", encoding="utf-8")
    return repo / ".heinzel" / "workflows"


def summary(compiled: Compiled) -> list[tuple[str, str, bool]]:
    return [(c.qualified_name, c.layer, c.enabled) for c in compiled.contracts]


def test_every_layer_is_discovered_with_its_namespace(repo: Path) -> None:
    write(repo / "workflows", "digest")
    write(project_dir(repo), "local-notes", scope="personal")
    write(user_dir(), "my-notes", scope="personal")
    compiled = compile_repository(repo, os.environ, cwd=repo)
    assert compiled.diagnostics == ()
    assert summary(compiled) == [
        ("hz:my-week", "module", True),
        ("me:my-notes", "user", True),
        ("project:local-notes", "project", True),
        ("team:digest", "team", True),
    ]
    assert compiled.get("my-week").path.endswith("hz/workflows/my-week.prose.md")


def test_a_local_team_scoped_contract_is_hzc302(repo: Path) -> None:
    path = write(user_dir(), "mine", scope="team")
    compiled = compile_here(repo)
    assert compiled.diagnostics == (
        Diagnostic(
            str(path),
            line_of("scope: team", path),
            10,
            "HZC302",
            "error",
            "hz.scope",
            "a user contract declares scope: team; only the team repository's workflows/ holds team contracts",
            "set scope: personal, or move the contract into the team repository's workflows/",
        ),
    )
    assert summary(compiled) == [("me:mine", "user", False)]


def test_same_name_in_two_layers_without_overrides_is_hzc301_on_the_local_one(repo: Path) -> None:
    write(repo / "workflows", "digest")
    path = write(user_dir(), "digest", scope="personal")
    compiled = compile_here(repo)
    assert [(d.path, d.line, d.code, d.loc, d.message, d.hint) for d in compiled.diagnostics] == [
        (str(path), 2, "HZC301", "name",
         "'digest' is also defined as the team contract team:digest (workflows/digest.prose.md);"
         " without hz.overrides one would silently shadow the other",
         "rename this contract; a team contract may override a module's; project and user contracts only personal"
         " ones; none a team one"),
    ]  # fmt: skip
    assert summary(compiled) == [("me:digest", "user", False), ("team:digest", "team", True)]


def test_team_shadowing_a_module_contract_must_say_overrides(tmp_path: Path, repo: Path) -> None:
    plugin = module(tmp_path, "news")
    write(plugin.directory, "digest")
    path = write(repo / "workflows", "digest")
    compiled = compile_here(repo, plugin)
    assert [(d.path, d.line, d.code, d.hint) for d in compiled.diagnostics] == [
        ("workflows/digest.prose.md", line_of("name:", path), "HZC301",
         "add `overrides: news:digest` under hz: to replace it, or rename this contract"),
    ]  # fmt: skip
    write(repo / "workflows", "digest", extra="  overrides: news:digest")
    compiled = compile_here(repo, plugin)
    assert compiled.diagnostics == ()
    assert summary(compiled) == [("team:digest", "team", True), ("news:digest", "module", False)]
    assert compiled.get("news:digest").disabled == "overridden by team:digest"
    assert compiled.overridden == {"news:digest": "team:digest"}


def test_readers_of_an_overridden_contract_read_the_replacement(tmp_path: Path, repo: Path) -> None:
    plugin = module(tmp_path, "news")
    write(plugin.directory, "digest")
    write(repo / "workflows", "digest", extra="  overrides: news:digest")
    write(repo / "workflows", "reader", inputs={"x": "contract:news/digest#summary"})
    compiled = compile_here(repo, plugin)
    assert [(e.source, e.target) for e in compiled.graph.edges] == [("team:digest", "team:reader")]


def test_local_contracts_may_override_only_personal_ones(tmp_path: Path, repo: Path) -> None:
    plugin = module(tmp_path, "news")
    write(plugin.directory, "private", scope="personal")
    write(plugin.directory, "shared")
    write(repo / "workflows", "digest", scope="personal")
    write(user_dir(), "private", scope="personal", extra="  overrides: news:private")
    shared = write(user_dir(), "shared", scope="personal", extra="  overrides: news:shared")
    team = write(user_dir(), "digest", scope="personal", extra="  overrides: team:digest")
    ghost = write(user_dir(), "ghost", scope="personal", extra="  overrides: news:nothing")
    compiled = compile_here(repo, plugin)
    assert [(d.path, d.line, d.code, d.message) for d in compiled.diagnostics] == [
        (str(team), line_of("overrides:", team), "HZC301",
         "a user contract may not override the personal contract team:digest (workflows/digest.prose.md)"),
        (str(ghost), line_of("overrides:", ghost), "HZC301", "overrides 'news:nothing', which no layer defines"),
        (str(shared), line_of("overrides:", shared), "HZC301",
         f"a user contract may not override the team contract news:shared ({plugin.directory / 'shared.prose.md'})"),
    ]  # fmt: skip
    assert compiled.get("news:private").disabled == "overridden by me:private"
    assert compiled.get("me:private").enabled


def test_two_modules_may_share_a_name_but_a_bare_lookup_is_ambiguous(tmp_path: Path, repo: Path) -> None:
    first, second = module(tmp_path, "alpha"), module(tmp_path, "beta")
    write(first.directory, "feed")
    write(second.directory, "feed")
    compiled = compile_here(repo, first, second)
    assert compiled.diagnostics == ()
    with pytest.raises(AmbiguousContract) as error:
        compiled.get("feed")
    assert error.value.message == "'feed' names several module contracts: alpha:feed, beta:feed"
    assert compiled.get("beta:feed").qualified_name == "beta:feed"
    with pytest.raises(UnknownContract):
        compiled.get("nothing")


def test_bare_names_resolve_team_then_project_then_me_then_module(tmp_path: Path, repo: Path) -> None:
    plugin = module(tmp_path, "news")
    write(plugin.directory, "pulse", scope="personal")
    write(user_dir(), "pulse", scope="personal", extra="  overrides: news:pulse")
    write(project_dir(repo), "notes", scope="personal")
    compiled = compile_here(repo, plugin)
    assert compiled.diagnostics == ()
    assert compiled.get("pulse").qualified_name == "me:pulse"
    assert compiled.get("notes").qualified_name == "project:notes"


def test_defaults_fill_team_contracts_before_validation(repo: Path) -> None:
    flows = repo / "workflows"
    flows.mkdir()
    (flows / "_defaults.yaml").write_text('hz:\n  owner: "@platform"\n  tz: Europe/Berlin\n', encoding="utf-8")
    text = contract("digest", extra='  schedule: "0 9 * * MON"').replace('  owner: "@alice"\n', "")
    write(flows, "digest", text=text)
    compiled = compile_here(repo)
    assert compiled.diagnostics == ()
    frontmatter = compiled.get("digest").contract.frontmatter  # type: ignore[union-attr]
    assert frontmatter.hz.owner == "@platform"
    assert [(c.cron, c.tz) for c in frontmatter.hz.schedule or ()] == [("0 9 * * MON", "Europe/Berlin")]


def test_a_broken_defaults_file_is_a_diagnostic(repo: Path) -> None:
    flows = repo / "workflows"
    flows.mkdir()
    (flows / "_defaults.yaml").write_text("hz:\n  owner: [unclosed\n", encoding="utf-8")
    write(flows, "digest")
    compiled = compile_here(repo)
    assert [(d.path, d.line, d.code) for d in compiled.diagnostics] == [("workflows/_defaults.yaml", 3, "HZC001")]
    assert compiled.get("digest").enabled
    (flows / "_defaults.yaml").write_text("owner: '@x'\n", encoding="utf-8")
    assert [(d.code, d.message) for d in compile_here(repo).diagnostics] == [
        ("HZC002", "unknown key 'owner': defaults go under hz:")
    ]


def test_outside_a_repository_only_user_and_module_layers_exist(tmp_path: Path) -> None:
    write(user_dir(), "mine", scope="personal")
    compiled = compile_repository(None, os.environ, cwd=tmp_path)
    assert summary(compiled) == [("hz:my-week", "module", True), ("me:mine", "user", True)]
