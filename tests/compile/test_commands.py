"""`hz graph` and `hz codeowners`, run in process against real repositories."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from hz.codeowners import BEGIN, BLOCK_NOTE, END, Ownership, render

from .contracts import write

Hz = Any  # the conftest fixture: hz(*argv) -> CliResult

ROOT = Path(__file__).resolve().parents[2]


def two_contracts(repo: Path) -> None:
    flows = repo / "workflows"
    write(flows, "digest")
    write(flows, "notes", inputs={"d": "contract:team/digest#summary"}, extra='  maintainers: ["@bob", "@org/docs"]')


# --- hz graph ---


def test_graph_text(hz: Hz, repo: Path) -> None:
    two_contracts(repo)
    result = hz("graph")
    assert (result.exit_code, result.out, result.err) == (
        0,
        "0  team:digest\n1  team:notes  <- team:digest#summary\n",
        "",
    )


def test_graph_json_and_observed(hz: Hz, repo: Path) -> None:
    two_contracts(repo)
    result = hz("graph", "--json", "--observed")
    assert result.exit_code == 0
    assert json.loads(result.out) == {
        "nodes": [
            {"name": "team:digest", "height": 0, "enabled": True},
            {"name": "team:notes", "height": 1, "enabled": True},
        ],
        "edges": [{"from": "team:digest", "to": "team:notes", "facet": "summary"}],
        "cycles": [],
        "observed": {
            "ref": None,
            "events": 0,
            "reads": [],
            "writes": [],
            "never_observed": [],
            "runs": {},
            "pending": [],
        },
    }


def test_graph_mermaid_with_a_cycle_says_so_on_stderr(hz: Hz, repo: Path) -> None:
    write(repo / "workflows", "a", inputs={"b": "contract:team/b#summary"})
    write(repo / "workflows", "b", inputs={"a": "contract:team/a#summary"})
    result = hz("graph", "--mermaid")
    assert result.exit_code == 0
    assert result.out.splitlines() == [
        "flowchart LR",
        '  n0["team:a"]',
        '  n1["team:b"]',
        "  n0 -->|summary| n1",
        "  n1 -->|summary| n0",
        "  classDef disabled stroke-dasharray: 5 5,opacity:0.6",
        "  class n0,n1 disabled",
    ]
    assert result.err == "some contracts have errors; `hz workflow validate` shows them\n"


def test_graph_outside_a_repository_is_an_error(hz: Hz, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    result = hz("graph")
    assert result.exit_code == 1
    assert result.err.startswith(f"error: not inside a git repository: {tmp_path.resolve()}\n")


# --- hz codeowners ---

EXPECTED = (
    f"{BEGIN}\n{BLOCK_NOTE}/workflows/digest.prose.md @alice\n/workflows/notes.prose.md @alice @bob @org/docs\n{END}\n"
)


def test_render_sorts_paths_dedupes_handles_and_escapes_spaces() -> None:
    text = render([Ownership("workflows/b.prose.md", "@x", ("@y", "@x")), Ownership("workflows/a b.prose.md", "@z")])
    assert text == f"{BEGIN}\n{BLOCK_NOTE}/workflows/a\\ b.prose.md @z\n/workflows/b.prose.md @x @y\n{END}\n"
    assert render([]) == f"{BEGIN}\n{BLOCK_NOTE}{END}\n"


def test_codeowners_prints_writes_and_checks(hz: Hz, repo: Path) -> None:
    two_contracts(repo)
    assert (hz("codeowners").exit_code, hz("codeowners").out) == (0, EXPECTED)

    check = hz("codeowners", "--check")
    assert check.exit_code == 1
    assert check.out.splitlines()[:3] == ["--- /dev/null", "+++ b/CODEOWNERS", "@@ -0,0 +1,6 @@"]
    assert check.err == "CODEOWNERS is out of date; run `hz codeowners --write`\n"

    written = hz("codeowners", "--write")
    assert (written.exit_code, written.out) == (0, "wrote CODEOWNERS (2 contracts)\n")
    assert (repo / "CODEOWNERS").read_text(encoding="utf-8") == EXPECTED
    assert stat.S_IMODE((repo / "CODEOWNERS").stat().st_mode) == 0o644
    assert (hz("codeowners", "--check").exit_code, hz("codeowners", "--check").out) == (
        0,
        "CODEOWNERS is up to date (2 contracts)\n",
    )


def test_codeowners_check_prints_the_drift_as_a_diff(hz: Hz, repo: Path) -> None:
    two_contracts(repo)
    (repo / "CODEOWNERS").write_text(EXPECTED.replace(" @bob", ""), encoding="utf-8")
    result = hz("codeowners", "--check")
    assert result.exit_code == 1
    assert result.out.splitlines()[-3:-1] == [
        "-/workflows/notes.prose.md @alice @org/docs",
        "+/workflows/notes.prose.md @alice @bob @org/docs",
    ]


def test_codeowners_json_and_flag_conflict(hz: Hz, repo: Path) -> None:
    two_contracts(repo)
    assert json.loads(hz("codeowners", "--json").out) == [
        {"path": "workflows/digest.prose.md", "owners": ["@alice"]},
        {"path": "workflows/notes.prose.md", "owners": ["@alice", "@bob", "@org/docs"]},
    ]
    result = hz("codeowners", "--write", "--check")
    assert (result.exit_code, result.err.splitlines()[-1]) == (2, "Error: --write and --check exclude each other")


def test_this_repositorys_codeowners_is_in_sync(hz: Hz, monkeypatch: Any) -> None:
    if not (ROOT / "CODEOWNERS").is_file():
        return  # only a checkout of hz itself has one
    monkeypatch.chdir(ROOT)
    result = hz("codeowners", "--check")
    assert (result.exit_code, result.err) == (0, ""), result.out
