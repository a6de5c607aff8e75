"""A fresh home's adoption (a derivation, `hz.session.derived`) under attack, by other processes, by a kill, by
hostile files (issue 22, adoption under 2 ms). The frontmatter's C loader's corners are in
tests/contract/test_yaml_loader_same.py.

Inside a derivation a new agent's spine is written aside and renamed into place when its writer closes, the
index learns it from the written bytes and its rows commit a batch at a time: a window where an agent is on
disk and not in the index. Other processes here are real ones (a child Python adopting, reading, killed).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hz.errors import HzError
from hz.session.lock import DERIVING, LOCK, SPINE
from hz.session.spine import SpineWriter
from hz.session.store import Store
from tests.heinzel.test_adopt_derived import NOW
from tests.heinzel.test_adopt_from_main_cost import CONTRACTS, team_repo

_REPO = Path(__file__).resolve().parents[2]

# A child adopting `root`'s main into `home`; each agent's catch-up slowed by `slow` s (a busy disk), a flag
# file written once the first agent is in place, SIGKILLed right after the `kill_at`-th agent's catch-up.
_CHILD = """
import os, signal, sys, time
from datetime import datetime
from pathlib import Path
from hz.session import index as ix
from hz.session.index import Index
from hz.session.store import Store
from hz.tick.team_adoption import adopt_new_team_contracts
root, main, home, now, slow, kill_at, flag, batch = sys.argv[1:9]
slow, kill_at, ix.BATCH_S = float(slow), int(kill_at), float(batch)
caught_up = Index.catch_up
count = 0
def catch_up(self, agent, written=None):
    global count
    time.sleep(slow)
    done = caught_up(self, agent, written)
    count += 1
    if count == 1 and flag != "-":
        Path(flag).write_text("in place")
    if count == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    return done
Index.catch_up = catch_up
environ = {**os.environ, "HZ_HOME": home, "HZ_HANDLE": "@omar"}
with Store.from_environ(environ) as store:
    print(adopt_new_team_contracts(store, Path(root), environ, datetime.fromisoformat(now), main))
"""

# A child that opens the home as any hz command does (and reindexes it, with "reindex") and lists its agents:
# how long that took, and what it saw of each agent (name, state, how many events its spine holds).
_READER = """
import json, os, sys, time
from hz.session.store import Store
started = time.monotonic()
with Store.from_environ({**os.environ, "HZ_HOME": sys.argv[1]}) as store:
    if sys.argv[2] == "reindex":
        store.reindex()
    opened = time.monotonic() - started
    seen = [(r["id"], r["name"], r["state"]) for r in store.index.db.execute("SELECT id, name, state FROM agents")]
    events = {agent: len(store.read(agent).events) for agent, _, _ in seen}
print(json.dumps({"opened": opened, "seen": seen, "events": events}))
"""


def _environ() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_REPO), os.environ.get("PYTHONPATH")]))}


def _adopter(
    tmp: Path, root: Path, main: str, *, slow: float = 0.0, kill_at: int = 0, flag: str = "-", batch: float = 0.5
) -> subprocess.Popen[str]:
    argv = [
        sys.executable,
        "-c",
        _CHILD,
        str(root),
        main,
        str(tmp / "hz"),
        NOW.isoformat(),
        str(slow),
        str(kill_at),
        flag,
        str(batch),
    ]
    return subprocess.Popen(argv, env=_environ(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(flag: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while not flag.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    assert flag.exists(), process.communicate()


def _agents(home: Path) -> list[tuple[str, str]]:
    with Store.from_environ({"HZ_HOME": str(home)}) as store:
        return sorted((str(r["name"]), str(r["id"])) for r in store.index.db.execute("SELECT name, id FROM agents"))


# --- killed after the renames, before the batch commits -------------------------------------------------


@pytest.mark.parametrize("batch", [0.5, 0.0], ids=["rows-uncommitted", "rows-committed"])
def test_killed_with_spines_in_place_and_rows_not_committed_is_undone_whole(tmp_path: Path, batch: float) -> None:
    """SIGKILL after three agents' spines were renamed into place: with their rows still in the open batch
    (never committed), or each committed already. The next open must leave neither spines nor rows."""
    root = tmp_path / "repo"
    main = team_repo(root)
    child = _adopter(tmp_path, root, main, kill_at=3, batch=batch)
    child.communicate(timeout=60)
    assert child.returncode == -9
    heinzel = tmp_path / "hz" / "heinzel"
    agents = [name for name in os.listdir(heinzel) if name.startswith("hz-")]
    assert len(agents) == 3 and all(sorted(os.listdir(heinzel / a)) == ["contract", SPINE] for a in agents)
    assert (heinzel / DERIVING).exists()
    with sqlite3.connect(heinzel / "index.sqlite") as db:  # what the dead process left committed
        committed = db.execute("SELECT count(*) FROM agents").fetchone()[0]
    assert committed == (0 if batch else 3)
    assert _agents(tmp_path / "hz") == []  # the next open undid the spines, and any rows of them
    assert not any(name.startswith("hz-") for name in os.listdir(heinzel)) and not (heinzel / DERIVING).exists()
    from hz.tick.team_adoption import adopt_new_team_contracts

    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    with Store.from_environ(environ) as store:  # and adopting again makes each agent once
        assert adopt_new_team_contracts(store, root, environ, NOW, main) == []
    assert [name for name, _ in _agents(tmp_path / "hz")] == sorted(f"pulse-{n}" for n in range(CONTRACTS))


# --- other processes while a derivation runs -------------------------------------------------------------


def test_processes_opening_and_reindexing_the_home_during_a_derivation(tmp_path: Path) -> None:
    """Two hz commands while a slow derivation runs (a busy disk): one opens the home and lists it, one
    reindexes it. The renamed spines are not in the committed index yet: the list must show whole agents
    or none, the reindex no duplicate or missing row once the derivation ends. The reindex needs the index's
    write lock, which `Index.batched` frees every `BATCH_S` (0.5 s here): a COMMIT followed at once by the
    next BEGIN IMMEDIATE kept a waiting process out until the derivation's end (~1.5 s of 1.8 s left)."""
    import json

    root = tmp_path / "repo"
    main = team_repo(root)
    flag = tmp_path / "flag"
    adopter = _adopter(tmp_path, root, main, slow=0.3, flag=str(flag))
    _wait_for(flag, adopter)
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", _READER, str(tmp_path / "hz"), how],
            env=_environ(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for how in ("open", "reindex")
    ]
    outputs = [reader.communicate(timeout=60) for reader in readers]
    out, err = adopter.communicate(timeout=60)
    assert adopter.returncode == 0 and out.strip() == "[]", out + err
    assert all(reader.returncode == 0 for reader in readers), outputs
    listed, reindexed = (json.loads(stdout) for stdout, _ in outputs)
    final = _agents(tmp_path / "hz")
    assert [name for name, _ in final] == sorted(f"pulse-{n}" for n in range(CONTRACTS))
    for seen in (listed, reindexed):  # never half an agent: its adoption's three events, or nothing
        assert all(seen["events"][agent] >= 3 and state for agent, _, state in seen["seen"]), seen
        assert {(agent, name) for agent, name, _ in seen["seen"]} <= {(i, n) for n, i in final}
    with Store.from_environ({"HZ_HOME": str(tmp_path / "hz")}) as store:  # a reindex now finds the same
        assert store.reindex() == CONTRACTS
    assert _agents(tmp_path / "hz") == final
    assert listed["opened"] < 0.5  # the list does not wait: it does not catch up spines with no mark
    assert reindexed["opened"] < 1.0, f"the reindex waited {reindexed['opened']:.2f} s (BATCH_S 0.5)"


def test_two_adoptions_of_a_fresh_home_at_once_make_one_agent_per_contract(tmp_path: Path) -> None:
    """A second tick adopting while the first one's derivation runs (on a busy disk): it finds the mark, so
    it adopted durably, found no agents in the committed index, and made a second agent of contracts the
    first one adopted (10 agents for 6 contracts: `pulse-2` twice, `pulse-3-repo`). It waits for the first."""
    root = tmp_path / "repo"
    main = team_repo(root)
    flag = tmp_path / "flag"
    first = _adopter(tmp_path, root, main, slow=0.25, flag=str(flag))
    _wait_for(flag, first)
    second = _adopter(tmp_path, root, main)
    second.communicate(timeout=60)
    first.communicate(timeout=60)
    names = [name for name, _ in _agents(tmp_path / "hz")]
    assert names == sorted(f"pulse-{n}" for n in range(CONTRACTS))


# --- hostile files where the derivation left no lock ------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "symlink", "symlink-to-fifo", "folder"])
def test_a_hostile_lock_put_where_a_derived_agent_has_none_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """A derived agent has no `lock` until its first writer: whatever another process puts there first is
    refused quickly (no blocking open of a pipe, no lock taken through a link), and the spine is untouched."""
    from hz.tick.team_adoption import adopt_new_team_contracts

    root = tmp_path / "repo"
    main = team_repo(root)
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    with Store.from_environ(environ) as store:
        assert adopt_new_team_contracts(store, root, environ, NOW, main) == []
    heinzel = tmp_path / "hz" / "heinzel"
    agent = sorted(name for name in os.listdir(heinzel) if name.startswith("hz-"))[0]
    assert not (heinzel / agent / LOCK).exists()
    before = (heinzel / agent / SPINE).read_bytes()
    if kind == "fifo":
        os.mkfifo(heinzel / agent / LOCK)
    elif kind == "symlink":
        (tmp_path / "elsewhere").write_bytes(b"")
        os.symlink(tmp_path / "elsewhere", heinzel / agent / LOCK)
    elif kind == "symlink-to-fifo":
        os.mkfifo(tmp_path / "pipe")
        os.symlink(tmp_path / "pipe", heinzel / agent / LOCK)
    else:
        os.mkdir(heinzel / agent / LOCK)
    started = time.monotonic()
    with pytest.raises(HzError, match="not the file hz locks"):
        SpineWriter.open(heinzel / agent, timeout=0.05)
    assert time.monotonic() - started < 1.0
    assert (heinzel / agent / SPINE).read_bytes() == before
    with Store.from_environ(environ) as store:  # the home still opens, the agent still reads whole
        assert not store.read(agent).problems and len(store.index.spine_ids()) == CONTRACTS
