"""A broken spine freezes its agent: no turn, no spend, no draft, and the reason wherever it is shown.

Issue 14, finding 8: one changed line in the middle of a spine and a rebuilt index made every tick run
the latest slot again (3 ticks, 3 model calls, 3 drafts for one key). The spines here are written by
real ticks; the damage is done by hand, the way a user's editor would.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hz.session.spine import SPINE, read_spine
from tests.turn.agents import adopt, contract_text

MONDAY = "2026-10-26T09:00Z"
FRIDAY = "2026-10-30T15:00Z"
NEXT_FRIDAY = "2026-11-06T15:00Z"
HINT = "  hint: hz heinzel repair weekly-note sets the untrusted lines aside (or restore the line from a backup)"


def _spine(agent: str) -> Path:
    return Path(os.environ["HZ_HOME"]) / "heinzel" / agent / SPINE


def _two_turns(hz: Any) -> str:
    """An agent whose spine holds two whole turns (created, then Friday's slot): 21 lines."""
    from datetime import UTC, datetime

    agent = adopt(contract_text(), now=datetime(2026, 10, 26, 9, 0, tzinfo=UTC))
    assert hz("tick", "--now", MONDAY).out == "weekly-note: started -> drafted\n"
    assert hz("tick", "--now", FRIDAY).out == "weekly-note: started -> drafted\n"
    assert len(_spine(agent).read_bytes().splitlines()) == 21
    return agent


def _edit(agent: str, seq: int, change: Callable[[bytes], bytes | None]) -> None:
    """Change (or, when `change` gives None, remove) line `seq` of the spine in place."""
    lines = _spine(agent).read_bytes().split(b"\n")
    changed = change(lines[seq - 1])
    lines[seq - 1 : seq] = [] if changed is None else [changed]
    _spine(agent).write_bytes(b"\n".join(lines))


def _lose_field(line: bytes) -> bytes:
    raw = json.loads(line)
    del raw["d"]["step"]  # still chained (its prev is right): a payload that lacks what its kind needs
    return json.dumps(raw, separators=(",", ":")).encode()


# Line 14 is the gather step of Friday's turn (seq 13 started it).
DAMAGE = {
    "changed": (
        lambda line: line.replace(b'"step":"gather"', b'"step":"Gather"'),
        "seq 14: the line was changed after it was written",
    ),
    "garbled": (
        lambda line: line[:40],
        "seq 14: not a valid envelope (not JSON: unexpected end of data: line 1 column 41 (char 40))",
    ),
    "lost a field": (_lose_field, "seq 14: its turn.step payload lacks step"),
    "removed": (lambda line: None, "seq 14: found seq 15 where seq 14 belongs (a line was removed or moved)"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_broken_spine_freezes_its_agent_tick_after_tick(repo: Path, hz: Any, damage: str) -> None:
    change, problem = DAMAGE[damage]
    agent = _two_turns(hz)
    _edit(agent, 14, change)
    assert hz("heinzel", "reindex").out == "rebuilt the index from 1 spine(s)\n"
    damaged = _spine(agent).read_bytes()
    draft = (repo / "notes" / "2026-W44.md").read_bytes()
    for _ in range(3):
        ticked = hz("tick", "--now", FRIDAY)
        assert (ticked.exit_code, ticked.out) == (1, f"weekly-note: frozen: its spine breaks at {problem}\n{HINT}\n")
    assert _spine(agent).read_bytes() == damaged  # no turn, no model call, no draft: not one line appended
    assert (repo / "notes" / "2026-W44.md").read_bytes() == draft
    assert sorted(p.name for p in (repo / "notes").iterdir()) == ["2026-W44.md"]


def test_a_break_the_index_has_not_seen_is_found_by_the_turn_and_shown_from_then_on(repo: Path, hz: Any) -> None:
    agent = _two_turns(hz)
    _edit(agent, 5, lambda line: line.replace(b'"step":"gather"', b'"step":"gatheR"'))  # same size: no reindex
    damaged = _spine(agent).read_bytes()
    problem = "seq 5: the line was changed after it was written"
    for _ in range(2):  # the first found by the turn's own read, the second by the index it taught
        ticked = hz("tick", "--now", NEXT_FRIDAY)
        assert (ticked.exit_code, ticked.out) == (1, f"weekly-note: frozen: its spine breaks at {problem}\n{HINT}\n")
    assert _spine(agent).read_bytes() == damaged
    listed = hz("heinzel", "list", "--state", "frozen")
    assert listed.out.splitlines()[1].split()[:2] == ["me:weekly-note", "frozen"]


def test_list_show_and_json_say_frozen_and_why(repo: Path, hz: Any) -> None:
    agent = _two_turns(hz)
    _edit(agent, 14, DAMAGE["changed"][0])
    hz("heinzel", "reindex")
    problem = "seq 14: the line was changed after it was written"
    assert hz("heinzel", "list").out == (
        "NAME            STATE   VERSION  NEXT DUE             PENDING  TODAY  ID\n"
        f"me:weekly-note  frozen  v1       2026-10-30 15:00:00  draft    0.00   {agent}\n"
        f"warning: the session of {agent} breaks at {problem} (hz heinzel show it)\n"
    )
    assert hz("heinzel", "list", "--state", "awake").out.startswith("no Heinzelmännchen yet")
    assert [(a["state"], a["frozen"]) for a in json.loads(hz("heinzel", "list", "--json").out)] == [
        ("frozen", f"its spine breaks at {problem}")
    ]
    shown = hz("heinzel", "show", "weekly-note")
    assert shown.out.splitlines()[0] == f"me:weekly-note  frozen  {agent}"
    assert shown.out.endswith(
        f"\nspine\n  {problem} (events after it are not trusted)\n"
        f"  frozen: no wakes, no model calls, no drafts until it is repaired\n{HINT}\n"
    )
    data = json.loads(hz("heinzel", "show", "weekly-note", "--json").out)
    assert (data["state"], data["frozen"]) == ("frozen", f"its spine breaks at {problem}")
    assert data["spine"] == {"last_seq": 13, "broken_seq": 14, "problem": problem}


def test_a_wake_by_hand_is_refused_too(repo: Path, hz: Any) -> None:
    agent = _two_turns(hz)
    _edit(agent, 14, DAMAGE["changed"][0])
    hz("heinzel", "reindex")
    damaged = _spine(agent).read_bytes()
    woken = hz("heinzel", "wake", "weekly-note")
    assert (woken.exit_code, woken.out) == (1, "")
    assert woken.err == (
        f"error: {agent} is frozen: its spine breaks at seq 14: the line was changed after it was written\n"
        f"{HINT.replace('weekly-note', agent)}\n"
    )
    assert _spine(agent).read_bytes() == damaged


def test_repair_sets_the_untrusted_lines_aside_and_the_agent_goes_on_once(repo: Path, hz: Any) -> None:
    agent = _two_turns(hz)
    whole = _spine(agent).read_bytes().split(b"\n")
    _edit(agent, 14, DAMAGE["changed"][0])
    damaged = _spine(agent).read_bytes()
    repaired = hz("heinzel", "repair", "weekly-note")
    aside = sorted(_spine(agent).parent.glob(f"{SPINE}.broken-*"))
    assert len(aside) == 1
    assert (repaired.exit_code, repaired.out) == (
        0,
        f"weekly-note: kept seq 1-13, set 8 line(s) from seq 14 on aside in {aside[0]}\n"
        "  it wakes again; what those lines recorded may run once more\n",
    )
    assert stat.S_IMODE(aside[0].stat().st_mode) == 0o600
    kept = b"\n".join(whole[:13]) + b"\n"
    assert kept + aside[0].read_bytes() == damaged  # nothing lost, nothing rewritten
    lines = _spine(agent).read_bytes().split(b"\n")
    assert lines[:13] == whole[:13]
    assert json.loads(lines[13])["k"] == 35  # spine.repaired's code in the compact line
    assert hz("heinzel", "repair", "weekly-note").out == "weekly-note: its spine is whole; nothing to repair\n"
    shown = hz("heinzel", "show", "weekly-note", "--json").out
    assert json.loads(shown)["state"] != "frozen"
    assert hz("heinzel", "reindex").exit_code == 0
    assert hz("heinzel", "show", "weekly-note", "--json").out == shown  # the index followed the repair exactly
    assert hz("tick", "--now", FRIDAY).out == "weekly-note: resumed -> drafted\n"  # Friday's turn, once
    assert hz("tick", "--now", FRIDAY).out == "nothing due\n"


@pytest.mark.parametrize("action", ["pause", "retire", "rename"])
def test_no_other_line_is_appended_to_a_frozen_spine(repo: Path, hz: Any, action: str) -> None:
    agent = _two_turns(hz)
    _edit(agent, 14, DAMAGE["changed"][0])
    hz("heinzel", "reindex")
    damaged = _spine(agent).read_bytes()
    argv = ("heinzel", action, "weekly-note", *(["weekly"] if action == "rename" else []))
    refused = hz(*argv)
    assert (refused.exit_code, refused.out) == (1, "")
    assert refused.err == (
        f"error: {agent} is frozen: its spine breaks at seq 14: the line was changed after it was written\n"
        f"{HINT.replace('weekly-note', agent)}\n"
    )
    assert _spine(agent).read_bytes() == damaged  # a line after the break would not count, so none is written


def test_a_line_restored_by_hand_unfreezes_the_agent_at_the_next_tick(repo: Path, hz: Any) -> None:
    agent = _two_turns(hz)
    whole = _spine(agent).read_bytes()
    _edit(agent, 14, DAMAGE["changed"][0])
    hz("heinzel", "reindex")
    assert hz("tick", "--now", FRIDAY).exit_code == 1
    _spine(agent).write_bytes(whole)  # the user's backup
    ticked = hz("tick", "--now", FRIDAY)
    assert (ticked.exit_code, ticked.out) == (0, "nothing due\n")
    assert json.loads(hz("heinzel", "show", "weekly-note", "--json").out)["frozen"] is None
    assert _spine(agent).read_bytes() == whole
    assert hz("tick", "--now", NEXT_FRIDAY).out == "weekly-note: started -> drafted\n"


def test_a_torn_last_line_is_a_crash_not_a_break_and_freezes_nothing(repo: Path, hz: Any) -> None:
    agent = _two_turns(hz)
    with _spine(agent).open("ab") as spine:
        spine.write(b'{"v":1,"seq":22,"ts":"2026-10-30T15:0')  # a write cut short by a crash
    assert hz("tick", "--now", NEXT_FRIDAY).out == "weekly-note: started -> drafted\n"
    kinds = [e.kind for e in read_spine(_spine(agent)).events]
    assert kinds[21] == "spine.repaired"  # the writer cut the torn bytes off and said so
