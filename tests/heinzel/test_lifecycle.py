"""hz heinzel new | list | show | retire | unretire | rename | pause, and hz approve of version 1."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hz.session.spine import SPINE, read_spine


def _new(hz: Any, contract_file: Path, name: str = "weekly-report") -> str:
    result = hz("heinzel", "new", name, "--from", str(contract_file))
    assert result.exit_code == 0, result.err
    match = re.fullmatch(
        rf"me:{name} is proposed \((hz-[0-9A-Z]{{26}})\): read its contract, then `hz approve {name}`\n", result.out
    )
    assert match, result.out
    return match.group(1)


def test_new_is_proposed_until_the_user_approves_version_1(hz: Any, contract_file: Path, tmp_path: Path) -> None:
    agent_id = _new(hz, contract_file)
    listed = json.loads(hz("heinzel", "list", "--json").out)
    assert [(a["id"], a["state"], a["contract"]["version"], a["next_due"]) for a in listed] == [
        (agent_id, "proposed", 1, None)
    ]
    approved = hz("approve", "weekly-report")
    assert approved.exit_code == 0
    assert re.fullmatch(
        r"me:weekly-report v1 approved: it is asleep and wakes on its own; first due \d{4}-\d\d-\d\dT15:00:00Z\n",
        approved.out,
    )
    row = json.loads(hz("heinzel", "list", "--json").out)[0]
    assert row["state"] == "asleep"
    home = Path(__import__("os").environ["HZ_HOME"]) / "heinzel" / agent_id
    assert (home / "contract" / "v1.prose.md").read_text(encoding="utf-8") == contract_file.read_text(encoding="utf-8")
    assert (
        json.loads((home / "contract" / "v1.json").read_text())["contract_fingerprint"]
        == row["contract"]["fingerprint"]
    )
    assert oct(home.stat().st_mode & 0o777) == "0o700"
    assert oct((home / SPINE).stat().st_mode & 0o777) == "0o600"
    kinds = [e.kind for e in read_spine(home / SPINE).events]
    assert kinds == ["heinzel.created", "contract.proposed", "contract.approved"]
    again = hz("approve", "weekly-report")
    assert again.exit_code == 1
    hint = "  hint: hz heinzel list shows agents and what they wait for\n"
    assert again.err == "error: nothing to approve under 'weekly-report'\n" + hint


def test_names_are_unique_per_namespace_and_ids_never_reused(hz: Any, contract_file: Path) -> None:
    first = _new(hz, contract_file)
    clash = hz("heinzel", "new", "weekly-report", "--from", str(contract_file))
    assert clash.exit_code == 1
    assert clash.err == (
        f"error: me:weekly-report exists already ({first}, proposed)\n"
        "  hint: pick another name with --name, or rename the other one\n"
    )
    second = _new(hz, contract_file, "weekly-report-2")
    team = hz("heinzel", "new", "weekly-report", "--from", str(contract_file), "--namespace", "team")
    assert team.exit_code == 0
    ids = {a["id"] for a in json.loads(hz("heinzel", "list", "--json").out)}
    assert len(ids) == 3 and {first, second} <= ids
    ambiguous = hz("heinzel", "show", "weekly-report")
    assert ambiguous.exit_code == 1
    assert ambiguous.err == (
        "error: weekly-report names several Heinzelmännchen: me:weekly-report, team:weekly-report\n"
        "  hint: qualify it: me:NAME\n"
    )
    assert hz("heinzel", "show", "team:weekly-report").exit_code == 0


def test_a_bad_name_or_a_broken_contract_is_refused(hz: Any, contract_file: Path, tmp_path: Path) -> None:
    bad = hz("heinzel", "new", "Weekly_Report", "--from", str(contract_file))
    assert bad.exit_code == 1
    assert bad.err == (
        "error: 'Weekly_Report' is not a valid name\n"
        "  hint: use lower-case letters, digits and single dashes, starting with a letter (at most 64)\n"
    )
    broken = tmp_path / "broken.prose.md"
    broken.write_text("no frontmatter here\n", encoding="utf-8")
    result = hz("heinzel", "new", "broken", "--from", str(broken))
    assert result.exit_code == 1
    assert result.err.startswith(f"error: the contract does not compile:\n{broken}:1:1  HZC001")
    assert hz("heinzel", "list", "--json").out == "[]\n"


def test_retire_unretire_rename_pause_follow_the_states(hz: Any, contract_file: Path) -> None:
    agent_id = _new(hz, contract_file)
    assert hz("approve", agent_id).exit_code == 0
    assert hz("heinzel", "retire", "weekly-report").out == "me:weekly-report is retired\n"
    assert hz("heinzel", "list", "--state", "retired", "--json").out.count(agent_id) == 1
    assert json.loads(hz("heinzel", "list", "--json").out)[0]["next_due"] is None  # never woken
    again = hz("heinzel", "retire", "weekly-report")
    assert again.exit_code == 1
    assert again.err == (
        "error: weekly-report is retired; retire applies only when it is proposed, asleep, awake, waiting, paused\n"
    )
    assert hz("heinzel", "unretire", "weekly-report").out == "me:weekly-report is asleep\n"
    assert hz("heinzel", "rename", "weekly-report", "friday-report").out == (
        f"me:weekly-report is now me:friday-report ({agent_id})\n"
    )
    assert hz("heinzel", "pause", "friday-report").out == "me:friday-report is paused\n"
    assert hz("heinzel", "list", "--state", "asleep").out.startswith("no Heinzelmännchen yet")
    assert hz("heinzel", "unpause", agent_id).out == "me:friday-report is asleep\n"
    row = json.loads(hz("heinzel", "list", "--json").out)[0]
    assert (row["name"], row["id"], row["state"]) == ("friday-report", agent_id, "asleep")
    assert row["next_due"] is not None


def test_list_filters_by_artifact_and_contract_version(hz: Any, contract_file: Path) -> None:
    _new(hz, contract_file)
    _new(hz, contract_file, "other-report")
    by_asset = json.loads(hz("heinzel", "list", "--artifact", "state:me/weekly/{slot:%G-W%V}.md", "--json").out)
    assert sorted(a["name"] for a in by_asset) == ["other-report", "weekly-report"]
    assert json.loads(hz("heinzel", "list", "--artifact", "doc:nothing", "--json").out) == []
    assert len(json.loads(hz("heinzel", "list", "--contract", "weekly-report@1", "--json").out)) == 2
    assert json.loads(hz("heinzel", "list", "--contract", "weekly-report@v2", "--json").out) == []
    wrong = hz("heinzel", "list", "--contract", "weekly-report@latest")
    assert wrong.exit_code == 1
    assert wrong.err == (
        "error: --contract 'weekly-report@latest': the version must be a whole number from 1 to 999999999\n"
        "  hint: write NAME or NAME@VERSION, e.g. --contract weekly-report@2\n"
    )
    table = hz("heinzel", "list").out.splitlines()
    assert table[0].split() == ["NAME", "STATE", "VERSION", "NEXT", "DUE", "PENDING", "TODAY", "ID"]
    assert [line.split()[:3] for line in table[1:]] == [
        ["me:other-report", "proposed", "v1"],
        ["me:weekly-report", "proposed", "v1"],
    ]


def test_show_has_versions_timeline_lessons_pending_and_cost(hz: Any, contract_file: Path) -> None:
    agent_id = _new(hz, contract_file)
    hz("approve", "weekly-report")
    shown = json.loads(hz("heinzel", "show", "weekly-report", "--json").out)
    assert shown["id"] == agent_id
    assert [(v["version"], v["approved"]) for v in shown["versions"]] == [(1, 1)]
    assert (shown["timeline"], shown["lessons"], shown["amendments"], shown["cost_month"]) == ([], [], [], {})
    text = hz("heinzel", "show", "weekly-report").out
    assert text.splitlines()[0] == f"me:weekly-report  asleep  {agent_id}"
    assert "\ntimeline\n  no turns yet\n\nwhat I learned from you\n  nothing yet\n\npending\n  nothing\n" in text
    assert text.endswith("\ncost\n  0.00 USD today · 0.00 USD this month\n")


def test_reindex_after_losing_the_index_loses_nothing(hz: Any, contract_file: Path) -> None:
    import os

    agent_id = _new(hz, contract_file)
    hz("approve", agent_id)
    before = hz("heinzel", "show", agent_id, "--json").out
    root = Path(os.environ["HZ_HOME"]) / "heinzel"
    assert oct((root / "index.sqlite").stat().st_mode & 0o777) == "0o600"
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (root / name).unlink(missing_ok=True)
    assert hz("heinzel", "show", agent_id, "--json").out == before
    assert hz("heinzel", "reindex").out == "rebuilt the index from 1 spine(s)\n"
    assert hz("heinzel", "show", agent_id, "--json").out == before


def test_show_tells_when_the_spine_was_edited_by_hand(hz: Any, contract_file: Path) -> None:
    import os

    agent_id = _new(hz, contract_file)
    hz("approve", agent_id)
    spine = Path(os.environ["HZ_HOME"]) / "heinzel" / agent_id / SPINE
    lines = spine.read_bytes().split(b"\n")
    lines[0] = lines[0].replace(b'"origin":"file"', b'"origin":"adopted"')
    spine.write_bytes(b"\n".join(lines))
    assert hz("heinzel", "reindex").exit_code == 0
    shown = hz("heinzel", "show", agent_id)
    assert shown.exit_code == 1
    assert shown.err == (
        f"error: {agent_id}: its session breaks at seq 1: the line was changed after it was written\n"
        "  hint: restore that line of session.jsonl from a backup, then hz heinzel reindex\n"
    )
    assert hz("heinzel", "list").out == (
        "no Heinzelmännchen yet (hz heinzel new NAME --from FILE, or hz workflow migrate)\n"
        f"warning: the session of {agent_id} breaks at seq 1: the line was changed after it was written"
        " (hz heinzel show it)\n"
    )
