from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from hz.sources.base import SourceError, SourceSpec
from hz.sources.cache import SourceCache
from hz.sources.fetcher import fetch_all
from hz.sources.gather import gather_for_turn, gather_inputs
from hz.sources.watch import Watch, watches_of
from tests.sources.conftest import NOW
from tests.sources.contracts import contract_text, load
from tests.sources.server import Server, payload, static

RSS = payload("rss.xml")
WEEK = timedelta(days=7)


def _feeds(server: Server, count: int) -> list[str]:
    for n in range(count):
        server.routes[f"/feed{n}.xml"] = static(RSS.replace(b"Retries", f"Retries {n}".encode()), etag=f'"f{n}"')
    return [f"feed:{server.url}/feed{n}.xml" for n in range(count)]


def _watches(uris: list[str], contracts: int, recheck: timedelta | None = None) -> list[Watch]:
    return [
        Watch(f"team:reader-{c}", f"in{c % 3}", SourceSpec(uris[c % len(uris)], window=WEEK), recheck)
        for c in range(contracts)
    ]


def test_200_watchers_of_20_sources_fetch_20_times_in_one_tick(server: Server, cache: SourceCache) -> None:
    watches = _watches(_feeds(server, 20), 200)
    report = fetch_all(watches, now=NOW, environ={}, root=None, cache=cache)
    assert server.count() == 20
    assert report.fetches == 20
    inputs = report.inputs()
    assert len(inputs) == 200
    assert inputs[("team:reader-0", "in0")].fingerprints == inputs[("team:reader-20", "in2")].fingerprints
    assert inputs[("team:reader-0", "in0")].fingerprints != inputs[("team:reader-1", "in1")].fingerprints


def test_a_second_pass_in_the_same_tick_fetches_nothing(server: Server, cache: SourceCache) -> None:
    watches = _watches(_feeds(server, 5), 50)
    fetch_all(watches, now=NOW, environ={}, root=None, cache=cache)
    again = fetch_all(watches, now=NOW, environ={}, root=None, cache=cache)
    assert server.count() == 5
    assert again.fetches == 0


def test_the_shortest_recheck_among_watchers_wins(server: Server, cache: SourceCache) -> None:
    [uri] = _feeds(server, 1)
    spec = SourceSpec(uri, window=WEEK)
    hourly = Watch("team:a", "news", spec, timedelta(hours=1))
    daily = Watch("team:b", "news", spec, timedelta(days=1))
    fetch_all([hourly, daily], now=NOW, environ={}, root=None, cache=cache)
    half_hour = fetch_all([hourly, daily], now=NOW + timedelta(minutes=30), environ={}, root=None, cache=cache)
    assert half_hour.fetches == 0
    later = fetch_all([hourly, daily], now=NOW + timedelta(minutes=61), environ={}, root=None, cache=cache)
    assert later.fetches == 1
    assert server.count() == 2
    assert server.requests[1].headers["if-none-match"] == '"f0"'


def test_without_recheck_every_tick_polls(server: Server, cache: SourceCache) -> None:
    watches = _watches(_feeds(server, 2), 4)
    fetch_all(watches, now=NOW, environ={}, root=None, cache=cache)
    fetch_all(watches, now=NOW + timedelta(minutes=1), environ={}, root=None, cache=cache)
    assert server.count() == 4


def test_a_failing_optional_source_is_a_stated_gap(server: Server, cache: SourceCache) -> None:
    [good] = _feeds(server, 1)
    missing = f"feed:{server.url}/gone.xml"
    text = contract_text(
        "reader",
        {
            "news": {"source": [good, missing], "window": "7d", "required": False},
            "more": {"source": missing, "required": False},
        },
    )
    inputs = gather_inputs(load(text), slot=NOW, root=None, environ={}, now=NOW, cache=cache)
    news, more = inputs["news"], inputs["more"]
    assert set(news.values) == {"items", "links", "gap"}
    assert list(news.values["items"]) == [good]
    gap = {
        "gap": "not-found",
        "source": missing,
        "message": f"the feed server has nothing at {server.url}/gone.xml (404 Not Found)",
    }
    assert news.values["gap"] == [gap]
    assert more.values == {"gap": gap}
    assert more.fingerprint != news.fingerprint
    assert more.error is None


def test_a_failing_required_source_fails_the_gather_and_caches_nothing(server: Server, cache: SourceCache) -> None:
    text = contract_text("reader", {"news": {"source": f"feed:{server.url}/gone.xml"}})
    with pytest.raises(SourceError) as caught:
        gather_inputs(load(text), slot=NOW, root=None, environ={}, now=NOW, cache=cache)
    assert caught.value.render() == (
        f"error: input news: the feed server has nothing at {server.url}/gone.xml (404 Not Found)\n"
        "  hint: check the source's name"
    )
    assert not cache.root.exists()


def test_the_order_of_an_inputs_sources_is_immaterial(server: Server, tmp_path: Path) -> None:
    a, b = _feeds(server, 2)
    one = gather_inputs(
        load(contract_text("r", {"news": {"source": [a, b]}})),
        slot=NOW,
        root=None,
        environ={},
        now=NOW,
        cache=SourceCache(tmp_path / "1"),
    )
    two = gather_inputs(
        load(contract_text("r", {"news": {"source": [b, a]}})),
        slot=NOW,
        root=None,
        environ={},
        now=NOW,
        cache=SourceCache(tmp_path / "2"),
    )
    assert one["news"].fingerprints == two["news"].fingerprints


def test_on_naming_a_facet_fingerprints_only_that_facet(server: Server, cache: SourceCache) -> None:
    [uri] = _feeds(server, 1)
    contract = load(contract_text("r", {"news": {"source": uri}}, on=["news.links"]))
    values, fingerprints = gather_for_turn(contract, slot=NOW, root=None, environ={}, now=NOW)
    from hz.canonical import fingerprint
    from hz.sources.canonical import combined

    assert fingerprints == {"news": combined({"links": fingerprint(values["news"]["links"])})}


def test_watches_of_a_contract(server: Server) -> None:
    contract = load(
        contract_text(
            "r",
            {
                "news": {
                    "source": ["feed:https://a.example/x", "feed:https://b.example/y"],
                    "window": "7d",
                    "recheck": "1h",
                }
            },
        )
    )
    assert [(w.contract, w.input, w.spec.uri, w.recheck) for w in watches_of(contract)] == [
        ("me:r", "news", "feed:https://a.example/x", timedelta(hours=1)),
        ("me:r", "news", "feed:https://b.example/y", timedelta(hours=1)),
    ]


CRASH = """
import os, signal, sys
from datetime import datetime
from hz.sources.gather import gather_for_turn
from tests.sources.contracts import contract_text, load
now = datetime.fromisoformat(sys.argv[2])
contract = load(contract_text("r", {"news": {"source": sys.argv[1], "window": "7d"}}))
values, fingerprints = gather_for_turn(contract, slot=now, root=None, environ=os.environ, now=now)
print(fingerprints["news"], flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # the crash between fetch and wake
"""


def test_a_crash_between_fetch_and_wake_rewakes_from_the_cache(server: Server) -> None:
    [uri] = _feeds(server, 1)
    done = subprocess.run(
        [sys.executable, "-c", CRASH, uri, NOW.isoformat()],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        cwd=Path(__file__).parents[2],
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert server.count() == 1
    contract = load(contract_text("r", {"news": {"source": uri, "window": "7d"}}))
    later = NOW + timedelta(minutes=3)
    values, fingerprints = gather_for_turn(contract, slot=NOW, root=None, environ=os.environ, now=later)
    assert fingerprints["news"] == done.stdout.strip()
    assert server.count() == 1, "the staged slot is read back, not fetched again"
    assert len(values["news"]["items"]) == 2


def test_a_lost_cache_costs_only_a_refetch(server: Server, cache: SourceCache) -> None:
    import shutil

    watches = _watches(_feeds(server, 1), 1)
    first = fetch_all(watches, now=NOW, environ={}, root=None, cache=cache).inputs()
    shutil.rmtree(cache.root)
    second = fetch_all(watches, now=NOW, environ={}, root=None, cache=cache).inputs()
    assert second == first
    assert server.count() == 2


def test_a_damaged_cache_file_is_treated_as_absent(server: Server, cache: SourceCache) -> None:
    watches = _watches(_feeds(server, 1), 1)
    fetch_all(watches, now=NOW, environ={}, root=None, cache=cache)
    for path in cache.root.glob("*.json"):
        path.write_text("{ half")
    again = fetch_all(watches, now=NOW, environ={}, root=None, cache=cache)
    assert again.fetches == 1


def test_prune_drops_old_entries_and_unreferenced_blobs(server: Server, cache: SourceCache) -> None:
    watches = _watches(_feeds(server, 2), 2)
    fetch_all(watches[:1], now=NOW - timedelta(days=100), environ={}, root=None, cache=cache)
    fetch_all(watches[1:], now=NOW, environ={}, root=None, cache=cache)
    assert len(list(cache.root.glob("*.json"))) == 4  # two entries and their staged slots
    removed = cache.prune(NOW, retention_days=90)
    assert removed == 3  # the old entry, its staged slots and the blob only it referenced
    assert [e.identity["source"] for e in cache.entries()] == [f"{server.url}/feed1.xml"]
    assert len(list((cache.root / "blobs").glob("*.json"))) == 1


def test_a_tick_with_microseconds_still_fetches_once(server: Server, cache: SourceCache) -> None:
    watches = _watches(_feeds(server, 3), 30)
    now = NOW.replace(microsecond=123456)
    fetch_all(watches, now=now, environ={}, root=None, cache=cache)
    for contract in range(30):
        fetch_all(watches[contract : contract + 1], now=now, environ={}, root=None, cache=cache)
    assert server.count() == 3


def test_an_earlier_slot_is_rebuilt_from_cached_records(server: Server, cache: SourceCache) -> None:
    [uri] = _feeds(server, 1)
    watch = Watch("team:a", "news", SourceSpec(uri, window=timedelta(days=4, hours=4)), None)
    now = fetch_all([watch], now=NOW, environ={}, root=None, cache=cache).inputs()[("team:a", "news")]
    earlier = fetch_all([watch], now=NOW, slot=NOW - timedelta(days=1), environ={}, root=None, cache=cache)
    value = earlier.inputs()[("team:a", "news")]
    assert earlier.fetches == 0
    assert server.count() == 1
    assert [i["title"] for i in value.values["items"]] == ["Retries 0 that do not hurt", "Why we moved to SQLite WAL"]
    assert [i["title"] for i in now.values["items"]] == ["Why we moved to SQLite WAL"]


def test_prune_sources_reads_retention_from_the_config(server: Server, tmp_path: Path) -> None:
    from hz.sources.cache import prune_sources

    environ = {"HZ_HOME": str(tmp_path / "home"), "HZ_CONFIG_HOME": str(tmp_path / "config")}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text("[heinzel]\nretention_days = 10\n")
    watches = _watches(_feeds(server, 1), 1)
    fetch_all(watches, now=NOW - timedelta(days=11), environ=environ, root=None)
    assert prune_sources(environ, NOW) == 3
    assert SourceCache.from_environ(environ).entries() == []


def test_hz_heinzel_prune_expires_the_source_cache(server: Server, hz: Any) -> None:
    from datetime import UTC, datetime

    from hz.config import config_home

    config_home().mkdir(parents=True, exist_ok=True)
    (config_home() / "config.toml").write_text("[heinzel]\nretention_days = 10\n")
    long_ago = datetime.now(UTC) - timedelta(days=11)
    fetch_all(_watches(_feeds(server, 1), 1), now=long_ago, environ=dict(os.environ), root=None)
    result = hz("heinzel", "prune")
    assert (result.exit_code, result.out) == (0, "pruned 0 file(s) and 3 source cache file(s) older than 10 days\n")
    assert SourceCache.from_environ(os.environ).entries() == []


def test_200_contracts_gathering_in_one_tick_cause_20_fetches(server: Server) -> None:
    uris = _feeds(server, 20)
    contracts = [
        load(contract_text(f"reader-{n}", {"news": {"source": uris[n % 20], "window": "7d"}})) for n in range(200)
    ]
    now = NOW.replace(microsecond=5)
    seen = {gather_for_turn(c, slot=now, root=None, environ=os.environ, now=now)[1]["news"] for c in contracts}
    assert server.count() == 20
    assert len(seen) == 20


def test_answers_from_the_cache_never_rewrite_the_fetched_records(server: Server, cache: SourceCache) -> None:
    [uri] = _feeds(server, 1)
    watch = Watch("team:a", "news", SourceSpec(uri, window=WEEK), timedelta(hours=1))
    fetch_all([watch], now=NOW, environ={}, root=None, cache=cache)
    entry_file = cache.path(watch.spec.key)
    before = entry_file.stat().st_ino
    for minute in range(1, 20):
        later = NOW + timedelta(minutes=minute)
        assert fetch_all([watch], now=later, slot=later, environ={}, root=None, cache=cache).fetches == 0
    assert entry_file.stat().st_ino == before
    assert len(cache.read(watch.spec.key).staged) == 20  # type: ignore[union-attr]
