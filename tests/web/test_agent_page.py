"""An agent's page and `hz heinzel show` read the index, not the spine: the timeline a page at a time
(the latest turns, then older ones by seq), and the whole spine checked only when asked (`--verify`)."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from hz.ops import Context
from hz.ops.models_agents import ShowRequest
from hz.ops.show import show_agent
from hz.session.spine import SPINE
from hz.session.store import Store
from tests.web.conftest import Hz, Served

AGENT = "hz-01JB0000000000000000000007"
FP = "sha256:" + "ab" * 32
CAP = {"name": "day", "limit_usd": 1.0, "spent_usd": 0.95, "needed_usd": 0.2}


def an_agent_with_turns(turns: int) -> None:
    """`turns` finished turns, a cap skip after the second, a summary and a hidden turn: written to a real
    spine through the store's writer (the index keeps up line by line)."""
    now = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    with Store.from_environ() as store:
        store.create(AGENT)
        with store.writer(AGENT, now=now) as w:
            w.append("heinzel.created", {"agent_id": AGENT, "name": "pages", "namespace": "me", "origin": "file"})
            w.append("contract.proposed", {"name": "pages", "contract_fingerprint": FP, "source_fingerprint": FP,
                                           "assets": ["doc:pages"], "inputs": {}})  # fmt: skip
            w.append("contract.approved", {"version": 1})
            for n in range(turns):
                w.append("turn.started", {"cause": "schedule", "contract_version": 1, "keys": []}, turn=f"t{n}")
                w.append("turn.finished", {"disposition": "drafted", "cause": "schedule", "usd": 0.01,
                                           "report": f"turn {n}", "flags": ["no-usage"] if n == 0 else []},
                         turn=f"t{n}")  # fmt: skip
                if n == 1:
                    w.append("turn.skipped", {"causes": ["schedule"], "keys": [], "reason": "cap", "cap": CAP})
            w.append("summary.written", {"asset": "the pages", "wants": "short ones", "decisions": ["a"]}, turn="t1")
            w.append("context.edit", {"target": "t0", "replacement": None})


def test_the_timeline_comes_a_page_at_a_time_from_the_index(hz: Hz) -> None:
    an_agent_with_turns(5)
    whole = show_agent(Context(), ShowRequest(name="pages"))["agent"]
    shown = [(t["turn"], t["status"], t["report"]) for t in whole["timeline"]]
    assert shown == [
        ("t0", "finished", "turn 0"),
        ("t1", "finished", "turn 1"),
        (None, "skipped", None),
        ("t2", "finished", "turn 2"),
        ("t3", "finished", "turn 3"),
        ("t4", "finished", "turn 4"),
    ]
    assert (whole["timeline_total"], whole["timeline_older"]) == (6, False)
    assert whole["timeline"][0]["flags"] == ["no-usage"] and whole["timeline"][2]["cap"] == CAP
    assert whole["summary"] is not None and whole["summary"]["wants"] == "short ones"
    assert [(e["target"], e["replacement"]) for e in whole["context_edits"]] == [("t0", None)]
    pages, before = [], None
    while True:
        page = show_agent(Context(), ShowRequest(name="pages", turns=4, before=before))["agent"]
        pages.insert(0, page["timeline"])
        if not page["timeline_older"]:
            break
        before = page["timeline"][0]["seq"]
    assert [len(p) for p in pages] == [2, 4] and [t for p in pages for t in p] == whole["timeline"]
    with pytest.raises(Exception, match="a page shows at least one"):
        show_agent(Context(), ShowRequest(name="pages", turns=0))


def test_the_page_links_to_older_turns(hz: Hz, repo: Path, served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hz.web.pages.TIMELINE", 4)  # the page's size, so a few turns fill more than one
    an_agent_with_turns(5)
    page = httpx.get(f"{served.base}/heinzel/{AGENT}", headers=served.bearer, timeout=30).text
    assert re.findall(r'<tr data-turn="([^"]*)"', page) == ["t4", "t3", "t2", ""]
    older = re.search(r'<a href="\?before=(\d+)">older turns</a> · <a href="\?turns=all">all 6 turns</a>', page)
    assert older is not None, page
    page = httpx.get(f"{served.base}/heinzel/{AGENT}?before={older.group(1)}", headers=served.bearer, timeout=30).text
    assert re.findall(r'<tr data-turn="([^"]*)"', page) == ["t1", "t0"] and "older turns" not in page
    assert '<a href="?">the latest turns</a>' in page


def test_show_verify_reads_the_whole_spine_again(hz: Hz) -> None:
    an_agent_with_turns(3)
    spine = Path(os.environ["HZ_HOME"]) / "heinzel" / AGENT / SPINE
    text = spine.read_bytes()
    spine.write_bytes(text.replace(b'"turn 1"', b'"turn X"'))  # changed in place, the size kept
    assert "\nspine\n" not in hz("heinzel", "show", "pages").out  # the index read these lines already
    verified = hz("heinzel", "show", "pages", "--verify")
    assert verified.exit_code == 0 and "\nspine\n  " in verified.out and "frozen: no wakes" in verified.out
    shown = json.loads(hz("heinzel", "show", "pages", "--json").out)
    assert shown["state"] == "frozen" and shown["spine"]["problem"]  # what the check found is kept
