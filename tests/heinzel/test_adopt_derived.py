"""A fresh home's adoption is durable once, at its end, and a kill in the middle is undone (issue 22).

Every Actions run adopts every team contract on main into an empty `$HZ_HOME`. Those writes are
derived from main alone, so they are not made durable one by one (hz.session.derived): a mark
`.deriving` is durable first, the agents are written with no fsync, one `syncfs` ends it. A process
killed in between leaves the mark; the next hz process undoes the agents it may have made and the next
tick adopts again from main. Here a real `hz tick` is killed with SIGKILL while it adopts, and the
next real tick must leave every contract adopted exactly once, asleep, with nothing torn.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hz.session.lock import DERIVING
from hz.session.store import Store
from hz.tick.team_adoption import adopt_new_team_contracts
from tests.heinzel.test_adopt_from_main_cost import CONTRACTS as COST_CONTRACTS
from tests.heinzel.test_adopt_from_main_cost import team_repo
from tests.turn.test_late_runner import CONTRACT_ID, HOURLY
from tests.turn.test_team import git

CONTRACTS = 60
NOW = datetime(2026, 10, 26, 11, 20, tzinfo=UTC)  # no slot due: the ticks adopt (and run created turns)


def team_clone(tmp: Path, contracts: int) -> Path:
    """A bare remote whose main holds `contracts` hourly team contracts, and a member's clone of it."""
    bare, seed = tmp / "team.git", tmp / "seed"
    git("init", "-q", "--bare", str(bare))
    git("init", "-q", str(seed))
    (seed / "hz.toml").write_text(f'[state]\nremote = "{bare}"\n')
    (seed / "workflows").mkdir()
    for n in range(contracts):
        text = HOURLY.replace(CONTRACT_ID, f"01KD{n:022d}").replace("name: team-pulse", f"name: pulse-{n}")
        (seed / "workflows" / f"pulse-{n}.prose.md").write_text(text)
    git("add", "-A", cwd=seed)
    git("commit", "-q", "-m", "contracts", cwd=seed)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    git("clone", "-q", str(bare), str(tmp / "clone"))
    return tmp / "clone"


def tick(clone: Path, environ: dict[str, str]) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "hz", "tick", "--now", NOW.isoformat(), "--json"]
    return subprocess.Popen(argv, cwd=clone, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def killed_while_adopting(clone: Path, environ: dict[str, str], heinzel: Path) -> int:
    """Start a tick and SIGKILL it once it has written a few agents; how many folders it left."""
    process = tick(clone, environ)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if heinzel.is_dir() and sum(name.startswith("hz-") for name in os.listdir(heinzel)) >= 5:
                break
            time.sleep(0.001)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.communicate()
    assert process.returncode == -signal.SIGKILL, "the tick ended before it could be killed mid-adoption"
    return sum(name.startswith("hz-") for name in os.listdir(heinzel))


def test_a_tick_killed_while_adopting_a_fresh_home_is_undone_and_adopted_again(tmp_path: Path) -> None:
    clone = team_clone(tmp_path, CONTRACTS)
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    heinzel = tmp_path / "hz" / "heinzel"
    left = killed_while_adopting(clone, environ, heinzel)
    assert 5 <= left < CONTRACTS  # killed in the middle: some agents written, not all
    assert (heinzel / DERIVING).exists()  # the derivation did not end
    assert not (tmp_path / "hz" / "team-contracts.seen").exists()  # so the next tick adopts again

    after = tick(clone, environ)
    out, err = after.communicate(timeout=120)
    assert after.returncode == 0, out + err
    assert [e for e in json.loads(out)["woken"] if e["action"] == "error"] == []
    assert not (heinzel / DERIVING).exists()
    with Store.from_environ(environ) as store:
        rows = list(store.index.db.execute("SELECT name, state, contract_version FROM agents"))
        assert sorted(str(r["name"]) for r in rows) == sorted(f"pulse-{n}" for n in range(CONTRACTS))
        assert {int(r["contract_version"]) for r in rows} == {1}
        assert "proposed" not in {str(r["state"]) for r in rows}  # every one approved (its created turn may wait)
        folders = [name for name in os.listdir(heinzel) if name.startswith("hz-")]
        assert sorted(folders) == sorted(store.index.spine_ids())  # no folder without a whole spine
        for agent in folders:  # each spine whole, as written: created, proposed, approved (then its turns)
            read = store.read(agent)
            assert not read.problems
            assert [e.kind for e in read.events[:3]] == ["heinzel.created", "contract.proposed", "contract.approved"]


def test_a_fresh_home_is_made_durable_once_not_write_by_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, every line, version file and folder of every adopted agent was fsynced (nine a contract)."""
    root = tmp_path / "repo"
    main = team_repo(root)
    synced: list[str] = []
    for name in ("fsync", "fdatasync"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda fd, real=real, name=name: (synced.append(name), real(fd))[1])
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    with Store.from_environ(environ) as store:
        store.index  # noqa: B018 (the index's own first writes are not the adoption's)
        synced.clear()
        assert adopt_new_team_contracts(store, root, environ, NOW, main) == []
        assert len(list(store.index.db.execute("SELECT id FROM agents"))) == COST_CONTRACTS
    # the mark made durable, its removal, and the stamp's atomic write: none per contract
    assert len(synced) <= 5, synced
    assert not (tmp_path / "hz" / "heinzel" / DERIVING).exists()
    with Store.from_environ(environ) as store:  # a second adoption of the same main changes nothing
        assert adopt_new_team_contracts(store, root, environ, NOW, main) == []
        assert len(list(store.index.db.execute("SELECT id FROM agents"))) == COST_CONTRACTS


def test_a_home_with_agents_adopts_as_before_and_keeps_no_mark(tmp_path: Path) -> None:
    """A mark left where agents live would have the next hz process remove every adopted agent."""
    from hz.heinzel.lifecycle import Origin, create

    root = tmp_path / "repo"
    main = team_repo(root)
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    other = HOURLY.replace(CONTRACT_ID, "01KE0000000000000000000000").replace("name: team-pulse", "name: elsewhere")
    with Store.from_environ(environ) as store:
        kept = create(store, other, label="elsewhere.prose.md", namespace="team", handle="@omar",
                      origin=Origin("adopted"), now=NOW, approve=True)  # fmt: skip
        assert adopt_new_team_contracts(store, root, environ, NOW, main) == []
    assert not (tmp_path / "hz" / "heinzel" / DERIVING).exists()
    with Store.from_environ(environ) as store:
        ids = {str(r["id"]) for r in store.index.db.execute("SELECT id FROM agents")}
    assert kept in ids and len(ids) == COST_CONTRACTS + 1
