"""`hz init` in process against real repositories: what it writes, that it runs twice, that it keeps team lines."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from hz.codeowners import Ownership, render
from hz.gitstate.settings import StateSettings, load_state_settings
from hz.review.approval_roster import load_roster

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult

SCAFFOLD = [
    "hz.toml",
    "workflows/_defaults.yaml",
    "workflows/repo-digest.prose.md",
    "policies/auto-approve.toml",
    ".github/workflows/hz-tick.yml",
    ".github/workflows/hz-check.yml",
    ".github/workflows/hz-state-lint.yml",
    "CODEOWNERS",
    ".pre-commit-config.yaml",
]
NO_ORIGIN = (
    "note: this repository has no remote 'origin' yet, which hz.toml's [state] names: add it with "
    "`git remote add origin URL` before the first tick"
)
STEPS = [
    "next steps:",
    "  1. commit these files and push them to the team's remote",
    "  2. protect hz/state and refs/hz/*: on GitHub, a ruleset on the branch hz/state that blocks deletion and "
    "force pushes; on a self-hosted bare remote, `hz state install-hook PATH/TO/REMOTE.git`",
    "  3. set the repository variable HZ_PACKAGE (Settings > Secrets and variables > Actions) to a pinned pip "
    "requirement of hz, for the Actions workflows",
    '  4. list each member under [team.members] in hz.toml ("@handle" = ["e-mail", "login"]); each member clones '
    "the repository and runs `hz tick` (or `hz daemon run`)",
    "  5. optionally run `pre-commit install` to check contracts and CODEOWNERS before each commit",
]


def listing(verbs: dict[str, str]) -> list[str]:
    return [f"{verbs.get(p, 'created'):<7} {p}" for p in SCAFFOLD]


def test_init_scaffolds_a_team_repository_that_validates_clean(hz: Hz, repo: Path) -> None:
    result = hz("init", "--owner", "@alice")
    assert (result.exit_code, result.out.splitlines()) == (0, [*listing({}), NO_ORIGIN, *STEPS])
    subprocess.run(["git", "remote", "add", "origin", "../team.git"], cwd=repo, check=True)
    validate = hz("workflow", "validate")
    assert (validate.exit_code, validate.out) == (0, "2 contracts checked: no problems\n"), validate.out
    assert hz("codeowners", "--check").exit_code == 0
    assert (repo / "CODEOWNERS").read_text(encoding="utf-8") == render(
        [Ownership("workflows/repo-digest.prose.md", "@alice")]
    )
    assert 'owner: "@alice"\n  tz: UTC\n' in (repo / "workflows/_defaults.yaml").read_text(encoding="utf-8")
    # [state] with the keys the tick reads, a roster the review reads (empty until the team fills it)
    assert load_state_settings(repo) == StateSettings("origin", 300, 2, 900)
    assert load_roster(repo).by_email == {} and load_roster(repo).by_login == {}
    assert '\n# "@priya" = ["priya@example.com", "priya-gh"]\n' in (repo / "hz.toml").read_text(encoding="utf-8")
    example = (repo / "workflows/repo-digest.prose.md").read_text(encoding="utf-8")
    assert re.search(r"^id: [0-9A-HJKMNP-TV-Z]{26}$", example, re.MULTILINE)
    assert '      target: "state:reports/repo-digest/{slot:%G-W%V}.md"\n' in example
    hooks = YAML(typ="safe").load((repo / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks["repos"][0]["hooks"]] == ["hz-validate", "hz-codeowners"]


def test_each_repository_gets_its_own_contract_id(hz: Hz, repo: Path, tmp_path: Path, monkeypatch: Any) -> None:
    hz("init", "--owner", "@alice")
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    monkeypatch.chdir(other)
    hz("init", "--owner", "@alice")
    ids = {re.findall(r"^id: (\S+)$", (r / "workflows/repo-digest.prose.md").read_text(), re.MULTILINE)[0]
           for r in (repo, other)}  # fmt: skip
    assert len(ids) == 2


def test_init_twice_changes_nothing_and_says_kept(hz: Hz, repo: Path) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows/_defaults.yaml").write_text("hz:\n  owner: '@mine'\n", encoding="utf-8")
    first = hz("init")
    assert first.out.splitlines()[1] == "kept    workflows/_defaults.yaml"
    assert (repo / "workflows/_defaults.yaml").read_text(encoding="utf-8") == "hz:\n  owner: '@mine'\n"
    before = {p: (repo / p).read_bytes() for p in SCAFFOLD}
    second = hz("init")
    assert second.exit_code == 0
    assert second.out.splitlines()[: len(SCAFFOLD)] == [f"kept    {p}" for p in SCAFFOLD]
    assert {p: (repo / p).read_bytes() for p in SCAFFOLD} == before


def test_init_keeps_the_lines_of_an_existing_codeowners_and_pre_commit_config(hz: Hz, repo: Path) -> None:
    owners = "# ours\n* @acme/core\n/docs/ @acme/docs\n"
    config = "# our hooks\nrepos:\n- repo: https://github.com/psf/black\n  rev: 24.1.0\n  hooks:\n  - id: black\n"
    (repo / "CODEOWNERS").write_text(owners, encoding="utf-8")
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    result = hz("init", "--owner", "@alice")
    assert result.out.splitlines()[: len(SCAFFOLD)] == listing(
        {"CODEOWNERS": "updated", ".pre-commit-config.yaml": "updated"}
    )
    written = (repo / "CODEOWNERS").read_text(encoding="utf-8")
    assert written.startswith(owners) and "/workflows/repo-digest.prose.md @alice\n# hz:end\n" in written
    assert hz("codeowners", "--check").exit_code == 0
    appended = (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert appended.startswith(config)
    assert "\n- repo: local\n  hooks:\n    - id: hz-validate\n" in appended  # at the list's own indentation
    repos = YAML(typ="safe").load(appended)["repos"]
    assert [r["repo"] for r in repos] == ["https://github.com/psf/black", "local"]
    again = hz("init", "--owner", "@alice")
    assert again.out.splitlines()[: len(SCAFFOLD)] == [f"kept    {p}" for p in SCAFFOLD]
    assert (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8") == appended


def test_a_pre_commit_config_hz_cannot_append_to_is_kept_with_a_note(hz: Hz, repo: Path) -> None:
    config = "repos: []\n"  # a flow list: appended lines would not land in it
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    result = hz("init", "--owner", "@alice")
    assert "kept    .pre-commit-config.yaml" in result.out.splitlines()
    assert "note: .pre-commit-config.yaml: `repos:` is not a block list; add hz's hooks by hand" in result.out
    assert (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8") == config


def test_a_kept_hz_toml_without_state_is_named(hz: Hz, repo: Path) -> None:
    (repo / "hz.toml").write_text('[forge]\nrepo = "acme/team"\n', encoding="utf-8")
    result = hz("init", "--owner", "@alice")
    assert "kept    hz.toml" in result.out.splitlines()
    assert "note: hz.toml has no [state] table, so team contracts run only on their owner's machine" in result.out


def test_an_earlier_tick_workflow_is_kept_and_no_second_one_written(hz: Hz, repo: Path) -> None:
    (repo / ".github/workflows").mkdir(parents=True)
    (repo / ".github/workflows/hz.yml").write_text("name: ours\n", encoding="utf-8")
    result = hz("init", "--owner", "@alice")
    assert "kept    .github/workflows/hz.yml" in result.out.splitlines()
    assert not (repo / ".github/workflows/hz-tick.yml").exists()


def test_init_without_a_handle_leaves_a_placeholder_and_says_so(hz: Hz, repo: Path) -> None:
    lines = hz("init").out.splitlines()
    assert lines[lines.index("next steps:") + 1] == (
        "  1. replace @your-handle in workflows/_defaults.yaml with the owner's handle, then run "
        "`hz codeowners --write`"
    )


def test_init_refuses_a_bad_handle(hz: Hz, repo: Path) -> None:
    result = hz("init", "--owner", "not a handle")
    assert (result.exit_code, result.err) == (
        1,
        "error: not a GitHub handle: 'not a handle'\n  hint: pass --owner @user or @org/team\n",
    )
