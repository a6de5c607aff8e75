"""The GitHub Actions workflows `hz init` writes, and this repository's own, checked as GitHub would read them.

The schema is the GitHub workflow JSON Schema that `check-jsonschema` ships (`vendor.github-workflows`),
read offline; `actionlint` runs too where it is installed. The hooks `hz init` adds to
`.pre-commit-config.yaml` run through the real `pre-commit`, with the `hz` of this environment on PATH.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from hz.commands.init_files import CACHE, CHECKOUT, SETUP_PYTHON

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
GENERATED = [".github/workflows/hz-tick.yml", ".github/workflows/hz-check.yml", ".github/workflows/hz-state-lint.yml"]
# The majors that run on a supported Node runtime; older ones are flagged as deprecated by GitHub and actionlint.
CURRENT = {"actions/checkout": CHECKOUT, "actions/setup-python": SETUP_PYTHON, "actions/cache": CACHE}


@pytest.fixture
def scaffolded(hz: Hz, repo: Path) -> Path:
    assert hz("init", "--owner", "@alice").exit_code == 0
    return repo


def workflows(repo: Path) -> list[Path]:
    return [repo / p for p in GENERATED] + sorted((ROOT / ".github/workflows").glob("*.yml"))


def tool(name: str) -> str | None:
    return shutil.which(name, path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def test_every_workflow_matches_githubs_schema(scaffolded: Path) -> None:
    checker = tool("check-jsonschema")
    assert checker is not None, "check-jsonschema is in the [test] extra: pip install -e '.[test]'"
    files = [str(p) for p in workflows(scaffolded)]
    done = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", *files],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert (done.returncode, done.stdout.strip()) == (0, "ok -- validation done"), done.stdout + done.stderr


def test_the_schema_check_refuses_a_broken_workflow(tmp_path: Path) -> None:
    """The check above can fail: a workflow with a misspelt key is refused by the same command."""
    broken = tmp_path / "broken.yml"
    broken.write_text("name: x\non: [push]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n")
    checker = tool("check-jsonschema")
    assert checker is not None
    done = subprocess.run([checker, "--builtin-schema", "vendor.github-workflows", str(broken)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 1


def test_every_workflow_passes_actionlint(scaffolded: Path) -> None:
    linter = tool("actionlint")
    if linter is None:
        pytest.skip("actionlint is not on PATH: its PyPI wrapper downloads a release binary at build time")
    done = subprocess.run([linter, "-no-color", *map(str, workflows(scaffolded))],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_workflow_uses_the_current_action_majors(scaffolded: Path) -> None:
    for path in workflows(scaffolded):
        for used in re.findall(r"uses:\s*(\S+)", path.read_text(encoding="utf-8")):
            action = used.split("@")[0]
            assert CURRENT.get(action) == used, f"{path.name}: {used}"


def test_the_tick_workflow_runs_on_schedule_and_by_hand_with_least_permissions(scaffolded: Path) -> None:
    tick = YAML(typ="safe").load((scaffolded / ".github/workflows/hz-tick.yml").read_text(encoding="utf-8"))
    assert set(tick["on"]) == {"schedule", "workflow_dispatch"}
    assert tick["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert tick["concurrency"] == {"group": "hz-tick", "cancel-in-progress": False}
    steps = tick["jobs"]["tick"]["steps"]
    kept = "${{ runner.temp }}/hz-compiled"
    assert steps[-2] == {"name": "Tick", "run": "hz tick",
                         "env": {"GITHUB_TOKEN": "${{ secrets.GITHUB_TOKEN }}", "HZ_COMPILE_CACHE": kept}}  # fmt: skip
    # the compiled contracts are kept between runs in that folder, keyed by main's contracts and the pinned hz
    assert steps[-3] == {"uses": CACHE, "with": {
        "path": kept, "key": "${{ steps.compiled.outputs.key }}",
        "restore-keys": "${{ steps.compiled.outputs.prefix }}"}}  # fmt: skip
    keyed = steps[-4]
    assert keyed["id"] == "compiled" and keyed["env"]["CONTRACTS"] == "${{ hashFiles('workflows/**') }}"
    assert keyed["env"]["HZ_PACKAGE"] == "${{ vars.HZ_PACKAGE }}" and "${{" not in keyed["run"]
    # the daily schedule alone also archives closed work of hz/state
    assert [c["cron"] for c in tick["on"]["schedule"]] == ["*/15 * * * *", "7 4 * * *"]
    assert steps[-1] == {"name": "Archive closed work of hz/state (the daily run)",
                         "if": "github.event.schedule == '7 4 * * *'", "run": "hz state compact"}  # fmt: skip
    install = next(s for s in steps if s.get("name") == "Install hz")
    assert install["env"] == {"HZ_PACKAGE": "${{ vars.HZ_PACKAGE }}"}


def test_the_check_workflow_runs_on_pull_requests_that_touch_the_team_files(scaffolded: Path) -> None:
    check = YAML(typ="safe").load((scaffolded / ".github/workflows/hz-check.yml").read_text(encoding="utf-8"))
    paths = check["on"]["pull_request"]["paths"]
    assert {"workflows/**", "policies/**", "hz.toml"} <= set(paths)
    assert check["permissions"] == {"contents": "read"}
    runs = [s["run"] for s in check["jobs"]["check"]["steps"] if "run" in s]
    assert runs[-2:] == ["hz workflow validate", "hz codeowners --check"]


def test_no_workflow_guesses_a_package_name(scaffolded: Path) -> None:
    for path in workflows(scaffolded):
        text = path.read_text(encoding="utf-8")
        installs = re.findall(r"pip install (.+)", text)
        assert installs in (['"$HZ_PACKAGE"'], ["."]), f"{path.name}: {installs}"


def test_the_pre_commit_hooks_init_adds_run_and_catch_a_broken_contract(scaffolded: Path) -> None:
    runner = tool("pre-commit")
    assert runner is not None, "pre-commit is in the [test] extra: pip install -e '.[test]'"
    environ = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               "PRE_COMMIT_HOME": str(scaffolded.parent / "pre-commit-home")}  # fmt: skip
    subprocess.run(["git", "add", "-A"], cwd=scaffolded, check=True)
    clean = subprocess.run([runner, "run", "--all-files"], cwd=scaffolded, env=environ,
                           capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert re.search(r"^hz workflow validate\.+Passed$", clean.stdout, re.MULTILINE)
    assert re.search(r"^hz codeowners --check\.+Passed$", clean.stdout, re.MULTILINE)
    (scaffolded / "workflows/broken.prose.md").write_text("---\nname: broken\n---\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=scaffolded, check=True)
    broken = subprocess.run([runner, "run", "--all-files"], cwd=scaffolded, env=environ,
                            capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert broken.returncode == 1 and "HZC0" in broken.stdout, broken.stdout


def test_the_key_of_the_compiled_contracts_moves_with_the_pinned_hz_and_the_contracts(
    scaffolded: Path, tmp_path: Path
) -> None:
    """The key step's script run as the runner runs it: one prefix per pinned hz, one key per contracts."""
    tick = YAML(typ="safe").load((scaffolded / ".github/workflows/hz-tick.yml").read_text(encoding="utf-8"))
    script = next(s for s in tick["jobs"]["tick"]["steps"] if s.get("id") == "compiled")["run"]

    def outputs(package: str, contracts: str) -> dict[str, str]:
        out = tmp_path / f"out-{len(list(tmp_path.iterdir()))}"
        environ = {"PATH": os.environ["PATH"], "HZ_PACKAGE": package, "CONTRACTS": contracts, "GITHUB_OUTPUT": str(out)}
        subprocess.run(["bash", "-e", "-c", script], env=environ, check=True, timeout=30)
        return dict(line.split("=", 1) for line in out.read_text(encoding="utf-8").splitlines())

    first = outputs("hz==1.0.0", "abc123")
    assert re.fullmatch(r"hz-compiled-[0-9a-f]{16}-", first["prefix"]) and first["key"] == first["prefix"] + "abc123"
    assert outputs("hz==1.0.0", "def456")["prefix"] == first["prefix"]
    assert outputs("hz==1.0.1", "abc123")["prefix"] != first["prefix"]
    assert outputs("hz @ git+https://example.org/hz@v2; $(touch x)", "abc123")["key"].startswith("hz-compiled-")
