from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.sources.contracts import contract_text
from tests.sources.helpers import commit, days_ago, git
from tests.sources.server import Server, payload, static

RSS = payload("rss.xml")
Hz = Callable[..., Any]


@pytest.fixture
def team(repo: Path, server: Server) -> Path:
    server.routes["/feed.xml"] = static(RSS, etag='"one"')
    (repo / "workflows").mkdir()
    text = contract_text("reader", {"news": {"source": f"feed:{server.url}/feed.xml", "recheck": "1h"}})
    (repo / "workflows" / "reader.prose.md").write_text(text)
    commit(repo, "README.md", "hello\n", days_ago(2), "Start")
    git(repo, "add", "workflows")
    git(repo, "commit", "-q", "-m", "contracts", when=days_ago(1))
    return repo


def test_list_before_anything_was_fetched(team: Path, server: Server, hz: Hz) -> None:
    result = hz("source", "list")
    assert (result.exit_code, result.err) == (0, "")
    assert result.out == (
        f"feed:{server.url}/feed.xml\n"
        "  watched by: team:reader.news\n"
        "  recheck: 1h; next: next tick\n"
        "  as of: never fetched\n"
        "git:.  (window: 1w)\n"
        "  watched by: hz:my-week.commits\n"
        "  recheck: every tick; next: next tick\n"
        "  as of: never fetched\n"
    )


def test_fetch_a_contract_then_list_shows_fingerprints(team: Path, server: Server, hz: Hz) -> None:
    fetched = hz("source", "fetch", "reader", "--json")
    assert fetched.exit_code == 0, fetched.err
    [row] = json.loads(fetched.out)
    assert row["uri"] == f"feed:{server.url}/feed.xml"
    assert row["how"] == "fetched"
    assert row["watchers"] == [{"contract": "team:reader", "input": "news", "recheck": "1h", "required": True}]
    assert [i["title"] for i in row["facets"]["items"]] == [
        "A look back at 2025",
        "Retries that do not hurt",
        "Why we moved to SQLite WAL",
    ]
    listed = json.loads(hz("source", "list", "--json").out)
    feed = next(r for r in listed if r["uri"].startswith("feed:"))
    assert feed["fingerprints"] == row["fingerprints"]
    assert feed["as_of"] == row["as_of"]
    assert feed["recheck"] == "1h"
    assert feed["next_recheck"] != "next tick"


def test_fetch_a_uri_prints_facets_and_fingerprints(team: Path, server: Server, hz: Hz) -> None:
    result = hz("source", "fetch", f"feed:{server.url}/feed.xml")
    assert result.exit_code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == f"feed:{server.url}/feed.xml"
    assert lines[1].startswith("  fetched as of ")
    assert lines[2].startswith("  items: sha256:")
    assert '        "url": "https://blog.example.org/engineering/retries",' in lines


def test_fetch_of_a_failing_source_exits_1_with_the_message(team: Path, server: Server, hz: Hz) -> None:
    result = hz("source", "fetch", f"feed:{server.url}/gone.xml")
    assert result.exit_code == 1
    assert result.err == (
        f"  error: the feed server has nothing at {server.url}/gone.xml (404 Not Found)\n"
        "    hint: check the source's name\n"
    )


def test_fetch_of_an_unknown_contract(team: Path, hz: Hz) -> None:
    result = hz("source", "fetch", "nothing")
    assert result.exit_code == 1
    assert result.err.startswith("error: ")


def test_a_bad_window_is_a_clear_error(team: Path, server: Server, hz: Hz) -> None:
    result = hz("source", "fetch", f"feed:{server.url}/feed.xml", "--window", "a week")
    assert (result.exit_code, result.err) == (
        1,
        "error: --window 'a week' is not a duration\n"
        "  hint: write a number and a unit, at most 3650d: 90m, 12h, 7d, 2w\n",
    )


def test_diff_without_an_agent(team: Path, hz: Hz) -> None:
    result = hz("source", "diff", "reader")
    assert (result.exit_code, result.err) == (
        1,
        "error: no approved Heinzelmännchen keeps reader\n"
        "  hint: hz heinzel list shows them; hz heinzel new creates one\n",
    )


def test_diff_after_a_turn_names_what_moved(team: Path, server: Server, hz: Hz) -> None:
    from datetime import UTC, datetime

    from hz.tick.daemon import tick
    from tests.turn.agents import adopt

    now = datetime.now(UTC)
    text = contract_text("reader", {"news": {"source": f"feed:{server.url}/feed.xml"}})
    adopt(text.replace("scope: personal", 'scope: personal\n  schedule: "0 * * * *"'), now=now, namespace="me")
    tick(root=team, now=now)
    unchanged = hz("source", "diff", "reader", "--json")
    assert unchanged.exit_code == 0, unchanged.err
    [row] = json.loads(unchanged.out)["inputs"]
    assert (row["input"], row["status"]) == ("news", "unchanged")
    server.routes["/feed.xml"] = static(RSS.replace(b"Retries that", b"Retries which"), etag='"two"')
    moved = hz("source", "diff", "reader")
    assert (moved.exit_code, moved.out) == (0, "news: moved\n")
