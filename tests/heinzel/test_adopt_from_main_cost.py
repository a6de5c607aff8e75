"""Adopting main's team contracts on a fresh home compiles each contract once (issue 22, adoption).

An Actions run starts from an empty home every time and adopts every team contract on main. Its adoption
read main's tip, then main's history for the contracts it did not run yet, then created each agent, and
compiled the same text in each step: three compiles per contract, the largest part of its cost. The count
is taken on the real loader, which still runs.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

import hz.contract.load
from hz.session.store import Store
from hz.tick.team_adoption import adopt_new_team_contracts
from tests.turn.test_late_runner import CONTRACT_ID, HOURLY

CONTRACTS = 6


def team_repo(root: Path) -> str:
    """A repository whose main holds CONTRACTS hourly team contracts; main's commit."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "workflows").mkdir()
    (root / "hz.toml").write_text(f'[state]\nremote = "{root.parent / "team.git"}"\n')
    for n in range(CONTRACTS):
        text = HOURLY.replace(CONTRACT_ID, f"01KD{n:022d}").replace("name: team-pulse", f"name: pulse-{n}")
        (root / "workflows" / f"pulse-{n}.prose.md").write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "contracts"], cwd=root, check=True)
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_fresh_home_compiles_each_contract_on_main_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    main = team_repo(root)
    compiled: list[str] = []
    real = hz.contract.load.load_text

    def counted(text: str, **kwargs: object) -> object:
        compiled.append(str(kwargs.get("path")))
        return real(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hz.contract.load, "load_text", counted)
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    with Store.from_environ(environ) as store:
        assert adopt_new_team_contracts(store, root, environ, datetime(2026, 10, 26, 11, tzinfo=UTC), main) == []
        agents = sorted(str(r["name"]) for r in store.index.db.execute("SELECT name FROM agents"))
    assert agents == [f"pulse-{n}" for n in range(CONTRACTS)]
    assert sorted(compiled) == [f"workflows/pulse-{n}.prose.md" for n in range(CONTRACTS)]
