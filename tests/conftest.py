"""Shared fixtures: every test runs with a private HZ_HOME, config home and a pinned git identity."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hz.cli import run
from tests.heavy_first import order
from tests.rewrite_ahead import rewrite_ahead


def pytest_configure(config: pytest.Config) -> None:
    """In the controller of a run with xdist workers, rewrite the test modules' asserts once for all of
    them (tests/rewrite_ahead.py)."""
    if not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        rewrite_ahead(config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest test files first, so the xdist workers end together (tests/heavy_first.py)."""
    order(config, items)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Keep tests out of the real home directory and give git a fixed identity."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HZ_HOME", str(home / "hz-data"))
    monkeypatch.setenv("HZ_CONFIG_HOME", str(home / "hz-config"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for key, value in {
        "GIT_AUTHOR_NAME": "hz test",
        "GIT_AUTHOR_EMAIL": "hz-test@example.invalid",
        "GIT_COMMITTER_NAME": "hz test",
        "GIT_COMMITTER_EMAIL": "hz-test@example.invalid",
    }.items():
        monkeypatch.setenv(key, value)
    for key in ("HZ_HANDLE", "HZ_COMPILE_CACHE", "GITHUB_ACTIONS", "GITHUB_RUN_ID", "GITHUB_TOKEN", "JIRA_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    (home / ".gitconfig").write_text('[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n')
    # what one test's settings or remotes made secret (process-wide in hz) is not a secret of the next
    monkeypatch.setattr("hz.secrets._NAMED", set())
    monkeypatch.setattr("hz.secrets._GIVEN", set())
    yield home


def _own_git_config() -> Path | None:
    """The config file of the repository the tests are run from (None: not run from a checkout)."""
    import subprocess

    found = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=Path(__file__).parent,
                           capture_output=True, text=True, check=False)  # fmt: skip
    if found.returncode != 0:
        return None
    return (Path(__file__).parent / found.stdout.strip() / "config").resolve()


_OWN_CONFIG = _own_git_config()


@pytest.fixture(autouse=True)
def own_repository_untouched() -> Iterator[None]:
    """Fail the test that changes the checkout's own git config, and put the config back.

    Once, a test run turned this checkout into a bare repository (`core.bare = true`, every other line
    gone); this names the culprit the next time instead of leaving every later git command broken.
    """
    before = _OWN_CONFIG.read_bytes() if _OWN_CONFIG is not None and _OWN_CONFIG.is_file() else None
    yield
    if before is None or _OWN_CONFIG is None:
        return
    after = _OWN_CONFIG.read_bytes() if _OWN_CONFIG.is_file() else b""
    if after != before:
        _OWN_CONFIG.write_bytes(before)
        pytest.fail(f"this test changed {_OWN_CONFIG}; it was put back", pytrace=False)


@pytest.fixture(autouse=True)
def no_process_left() -> Iterator[None]:
    """Fail the test that leaves a child process running, and end that process.

    A tick, daemon or server left behind keeps asking the address it was given; on this worker the
    system soon hands that port to the next test's fake forge, whose answers and queued faults it then
    takes (tests/leftovers.py). The test that started it is the one named, not the one that suffers."""
    from tests import leftovers

    before = leftovers.children()
    yield
    left = leftovers.left_since(before)
    if left:
        leftovers.end(left)
        shown = "; ".join(f"{pid}: {command}" for pid, command in left.items())
        pytest.fail(f"this test left {len(left)} process(es) running (now killed): {shown}", pytrace=False)


@dataclass
class CliResult:
    exit_code: int
    out: str
    err: str


@pytest.fixture
def hz(capsys: pytest.CaptureFixture[str]) -> object:
    """Run `hz` in process: `hz("workflow", "list")` returns the exit code and what was printed."""

    def invoke(*argv: str) -> CliResult:
        capsys.readouterr()
        code = run(list(argv))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return invoke


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository as the current directory."""
    import subprocess

    path = tmp_path / "repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    monkeypatch.chdir(path)
    os.environ["PWD"] = str(path)
    return path
