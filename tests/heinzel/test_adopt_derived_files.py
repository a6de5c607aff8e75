"""What a fresh home's adoption leaves on disk, and what it no longer writes (issue 22, adoption under 2 ms).

Creating a file is most of what an adopted agent costs on a busy disk. Inside a derivation a new agent's
spine takes no `lock` file (it is written as `.session.jsonl.new` and renamed into place whole), and the
index's rows go in a few transactions instead of one per agent. Any later writer makes the lock as ever
and excludes every other one.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hz.errors import LockTimeout
from hz.session.lock import DERIVED_SPINE, DERIVING, LOCK, SPINE
from hz.session.spine import SpineWriter
from hz.session.store import Store
from hz.spend.standing import IN_FLIGHT, STOPPED, why_in_doubt
from hz.tick.team_adoption import adopt_new_team_contracts
from tests.heinzel.test_adopt_derived import NOW, team_clone, tick
from tests.heinzel.test_adopt_from_main_cost import CONTRACTS, team_repo


def _adopted(tmp_path: Path) -> tuple[dict[str, str], Path]:
    root = tmp_path / "repo"
    main = team_repo(root)
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    with Store.from_environ(environ) as store:
        assert adopt_new_team_contracts(store, root, environ, NOW, main) == []
    return environ, tmp_path / "hz" / "heinzel"


def test_an_adopted_agent_has_no_lock_until_a_writer_opens_it_and_then_it_excludes(tmp_path: Path) -> None:
    environ, heinzel = _adopted(tmp_path)
    folders = sorted(name for name in os.listdir(heinzel) if name.startswith("hz-"))
    assert len(folders) == CONTRACTS
    for name in folders:  # the spine in place, whole; nothing else the derivation wrote for it
        assert sorted(os.listdir(heinzel / name)) == ["contract", SPINE]
    agent = folders[0]
    assert why_in_doubt(heinzel / agent) == STOPPED  # no lock file: no turn holds it
    with Store.from_environ(environ) as store:
        assert not store.read(agent).problems
        with store.writer(agent, now=NOW) as writer:
            writer.append("heinzel.paused", {"reason": "user"}, now=NOW)
            assert (heinzel / agent / LOCK).is_file()  # made by the first writer after the derivation
            assert why_in_doubt(heinzel / agent) == IN_FLIGHT
            with pytest.raises(LockTimeout):  # a second writer is excluded, as ever
                SpineWriter.open(heinzel / agent, timeout=0.05)
        assert store.index.agent(agent)["state"] == "paused"  # type: ignore[index]
        second = SpineWriter.open(heinzel / agent, timeout=0.05)  # released: the next one takes it
        second.close()
        assert [e.kind for e in store.read(agent).events] == [
            "heinzel.created", "contract.proposed", "contract.approved", "heinzel.paused"
        ]  # fmt: skip


def test_the_index_rows_of_an_adoption_are_committed_in_one_transaction(tmp_path: Path) -> None:
    """Before, each adopted agent's rows were a transaction of their own: a commit per agent."""
    root = tmp_path / "repo"
    main = team_repo(root)
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    with Store.from_environ(environ) as store:
        commits: list[str] = []
        store.index.db.set_trace_callback(lambda sql: commits.append(sql) if sql.strip() == "COMMIT" else None)
        assert adopt_new_team_contracts(store, root, environ, NOW, main) == []
        store.index.db.set_trace_callback(None)
        assert len(list(store.index.db.execute("SELECT id FROM agents"))) == CONTRACTS
    assert len(commits) == 1  # the batch's (it commits early only once it has been open half a second)


def test_an_error_inside_a_batch_rolls_it_back_and_a_failed_write_inside_is_undone_alone(tmp_path: Path) -> None:
    from hz.session.index import Index

    with Index.open(tmp_path / "heinzel") as index:
        with pytest.raises(RuntimeError), index.batched():
            with index._tx() as db:
                db.execute("INSERT INTO spines VALUES ('hz-a', 1, 1, 'h', NULL, NULL)")
            with pytest.raises(ValueError), index._tx() as db:  # one write failing is undone alone
                db.execute("INSERT INTO spines VALUES ('hz-b', 1, 1, 'h', NULL, NULL)")
                raise ValueError("refused")
            assert [r[0] for r in index.db.execute("SELECT agent FROM spines")] == ["hz-a"]
            raise RuntimeError("the derivation failed")
        assert list(index.db.execute("SELECT agent FROM spines")) == []
        assert not index.db.in_transaction


def test_a_spine_left_under_its_derived_name_is_undone_by_the_next_open(tmp_path: Path) -> None:
    """A process killed while it wrote a new agent's lines, before the rename: no spine, so not an agent."""
    heinzel = tmp_path / "hz" / "heinzel"
    folder = heinzel / "hz-01KD0000000000000000000000"
    folder.mkdir(parents=True)
    (folder / DERIVED_SPINE).write_bytes(b'{"n":1,"k":"heinzel.created"')
    (heinzel / DERIVING).write_bytes(b"")  # the mark, with no process holding it
    with Store.from_environ({"HZ_HOME": str(tmp_path / "hz")}) as store:
        assert store.index.spine_ids() == []
    assert not folder.exists() and not (heinzel / DERIVING).exists()


def test_a_tick_runs_over_a_home_adopted_without_lock_files(tmp_path: Path) -> None:
    """The created turns of every adopted agent run under locks the tick makes."""
    import json

    clone = team_clone(tmp_path, 4)
    environ = {**os.environ, "HZ_HOME": str(tmp_path / "hz"), "HZ_HANDLE": "@omar"}
    main = subprocess.run(
        ["git", "rev-parse", "origin/main"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    with Store.from_environ(environ) as store:
        assert adopt_new_team_contracts(store, clone, environ, NOW, main) == []
    heinzel = tmp_path / "hz" / "heinzel"
    agents = [name for name in os.listdir(heinzel) if name.startswith("hz-")]
    assert len(agents) == 4 and not any((heinzel / a / LOCK).exists() for a in agents)
    ran = tick(clone, environ)
    out, err = ran.communicate(timeout=120)
    assert ran.returncode == 0, out + err
    assert [e for e in json.loads(out)["woken"] if e["action"] == "error"] == []
    with Store.from_environ(environ) as store:
        for agent in agents:
            read = store.read(agent)
            assert not read.problems
            assert [e.kind for e in read.events[:3]] == ["heinzel.created", "contract.proposed", "contract.approved"]
            assert store.index.spine_state(agent)["size"] == (heinzel / agent / SPINE).stat().st_size  # type: ignore[index]


def test_the_rows_an_adoption_writes_are_the_rows_a_rebuild_reads_from_the_spines(tmp_path: Path) -> None:
    """The index learns a derived agent from the bytes its writer wrote, in batched transactions; a rebuild
    reads the files. Both must give the same rows, table by table."""
    from hz.session.schema import TABLES

    environ, _ = _adopted(tmp_path)

    def tables(store: Store) -> dict[str, list[tuple[object, ...]]]:
        return {t: sorted(tuple(r) for r in store.index.db.execute(f"SELECT * FROM {t}")) for t in TABLES}

    with Store.from_environ(environ) as store:
        adopted = tables(store)
        assert len(adopted["agents"]) == CONTRACTS
        assert store.reindex() == CONTRACTS
        assert tables(store) == adopted
