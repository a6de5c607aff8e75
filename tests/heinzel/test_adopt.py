"""Adopting a repository's contracts: each becomes a Heinzelmännchen at v1, asleep; twice is a no-op."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hz.heinzel.adopt import adopt
from hz.heinzel.versions import compile_text, version_path
from hz.session.store import Store
from tests.heinzel.conftest import CONTRACT

NOW = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
TEAM = (
    CONTRACT.replace("scope: personal", "scope: team")
    .replace('source: "git:log"', 'source: "git:."')
    .replace("state:me/weekly", "state:reports/weekly")
)


def _repo(repo: Path) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows" / "weekly-report.prose.md").write_text(TEAM, encoding="utf-8")
    (repo / "workflows" / "_defaults.yaml").write_text("hz:\n  tz: Europe/Berlin\n", encoding="utf-8")
    (repo / "workflows" / "broken.prose.md").write_text("not a contract\n", encoding="utf-8")


def _adopt(store: Store, repo: Path) -> list[tuple[str, str]]:
    found = adopt(store, repo, now=NOW, handle="@priya", environ=os.environ)
    return [(f"{a.namespace}:{a.name}", a.action) for a in found]


def test_adopting_twice_changes_nothing(repo: Path) -> None:
    _repo(repo)
    with Store.from_environ() as store:
        assert _adopt(store, repo) == [
            ("team:broken", "skipped: does not compile (hz workflow validate)"),
            ("team:weekly-report", "created"),
        ]
        [row] = store.index.agents()
        assert (row["state"], row["contract_version"], row["origin"], row["source"]) == (
            "asleep", 1, "adopted", "workflows/weekly-report.prose.md"
        )  # fmt: skip
        assert row["next_due"] == "2026-10-30T14:00:00Z"  # 15:00 in Berlin, from _defaults.yaml
        stored = version_path(store.agent_dir(row["id"]), 1).read_text(encoding="utf-8")
        assert "tz: Europe/Berlin" in stored  # self-contained: a turn needs no _defaults.yaml
        spine = (store.agent_dir(row["id"]) / "session.jsonl").read_bytes()
        before = store.index.dump()
        assert _adopt(store, repo) == [
            ("team:broken", "skipped: does not compile (hz workflow validate)"),
            ("team:weekly-report", "unchanged"),
        ]
        assert (store.agent_dir(row["id"]) / "session.jsonl").read_bytes() == spine
        assert store.index.dump() == before


def test_an_edited_file_is_proposed_once_as_the_users_amendment(repo: Path) -> None:
    _repo(repo)
    with Store.from_environ() as store:
        _adopt(store, repo)
        path = repo / "workflows" / "weekly-report.prose.md"
        path.write_text(TEAM.replace("window: 7d", "window: 14d"), encoding="utf-8")
        assert _adopt(store, repo)[1] == ("team:weekly-report", "amendment proposed")
        assert _adopt(store, repo)[1] == ("team:weekly-report", "unchanged")
        [row] = store.index.agents()
        [amendment] = store.index.amendments(row["id"])
        assert (amendment["by_whom"], amendment["status"], amendment["sentence"]) == (
            "user", "pending", "the repository's workflows/weekly-report.prose.md changed"
        )  # fmt: skip
        expected = compile_text(
            path.read_text(encoding="utf-8"), label="x", namespace="team", defaults={"tz": "Europe/Berlin"}
        )
        assert amendment["contract_fingerprint"] == expected.contract_fingerprint


def test_adopt_repository_tells_only_what_changed(repo: Path, capsys: Any) -> None:
    from hz.commands.heinzel_adopt import adopt_repository

    _repo(repo)
    assert adopt_repository(repo, environ=os.environ, now=NOW) == 0
    first = capsys.readouterr()
    assert first.out == ""
    assert re.fullmatch(r"team:weekly-report: Heinzelmännchen created \(hz-[0-9A-Z]{26}\), asleep at v1\n", first.err)
    assert adopt_repository(repo, environ=os.environ, now=NOW) == 0
    assert capsys.readouterr().err == ""
    path = repo / "workflows" / "weekly-report.prose.md"
    path.write_text(TEAM.replace("window: 7d", "window: 3d"), encoding="utf-8")
    assert adopt_repository(repo, environ=os.environ, now=NOW) == 0
    assert capsys.readouterr().err == (
        "team:weekly-report: the file changed: amendment proposed (hz heinzel show weekly-report, then hz approve)\n"
    )


def test_hz_workflow_migrate_adopts_the_repository_once(repo: Path, hz: Any) -> None:
    (repo / "workflows").mkdir()
    (repo / "workflows" / "weekly-report.prose.md").write_text(TEAM, encoding="utf-8")
    first = hz("workflow", "migrate")
    assert (first.exit_code, first.out) == (0, "workflows/weekly-report.prose.md: schema 1, up to date\n")
    assert re.fullmatch(r"team:weekly-report: Heinzelmännchen created \(hz-[0-9A-Z]{26}\), asleep at v1\n", first.err)
    again = hz("workflow", "migrate")
    assert (again.exit_code, again.out, again.err) == (0, first.out, "")
    listed = hz("heinzel", "list", "--state", "asleep").out.splitlines()
    assert [line.split()[:3] for line in listed[1:]] == [["team:weekly-report", "asleep", "v1"]]
