"""A drafting tick compiles each contract text once and reads each contract's declarations on main once.

Before, a team contract was compiled three times a tick (the work tree's projection, its agent's stored
version for the plan, main's copy for the publishes) and its frontmatter read four times for main's
declarations (the approval sweep, the watch, the auto-publish and the claim's roles): counted here, so a
path that compiles again fails."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hz.contract import compiled, load
from hz.gitstate import main_declared
from hz.tick.daemon import tick
from tests.contract.corpus_odd import write_corpus
from tests.turn.test_team_onepush import HOUR, SLOTS, _team


def test_a_drafting_tick_compiles_each_contract_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _bare, clone, environ, _log = _team(tmp_path, monkeypatch)
    compiles: Counter[str] = Counter()
    reads: Counter[str] = Counter()
    compile_, read = load._compile, main_declared._declared

    def counted_compile(text: str, **kw: Any) -> load.LoadResult:
        compiles[text] += 1
        return compile_(text, **kw)

    def counted_read(text: str, defaults: Any) -> Any:
        reads[text] += 1
        return read(text, defaults)

    monkeypatch.setattr(load, "_compile", counted_compile)
    monkeypatch.setattr(main_declared, "_declared", counted_read)
    report = tick(root=clone, environ=environ, now=HOUR)
    assert [e.get("disposition") for e in report.woken] == ["drafted"] * SLOTS
    team = [text for text in compiles if "scope: team" in text]
    assert len(team) == SLOTS
    assert max(compiles.values()) == 1, compiles.values()
    assert len(reads) == SLOTS and max(reads.values()) == 1, reads.values()


def test_a_kept_compile_under_another_label_is_that_labels_compile(tmp_path: Path) -> None:
    """Every shape of the odd corpus, compiled first as text, then as its file: the kept result relabelled
    equals a compile of the file alone (its path, the findings' file, the name-against-stem check)."""
    folder = tmp_path / "workflows"
    folder.mkdir()
    names = write_corpus(folder)
    assert names
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        decoded = load.decode(data)
        if not isinstance(decoded, str):
            continue
        alone = load.load_contract(path)
        with compiled.shared():
            first = load.load_text(decoded, path="<main>")
            again = load.load_contract(path)
            other = load.load_contract(path.with_name("renamed.prose.md"), text=decoded)
        assert first == load.load_text(decoded, path="<main>"), path.name
        assert again == alone, path.name
        assert [d.path for d in again.diagnostics] == [d.path for d in alone.diagnostics], path.name
        assert other == load.load_contract(path.with_name("renamed.prose.md"), text=decoded), path.name


def test_outside_a_tick_nothing_is_kept() -> None:
    from tests.contract.samples import GOOD

    first = load.load_text(GOOD)
    assert load.load_text(GOOD) is not first
    with compiled.shared():
        kept = load.load_text(GOOD)
        assert load.load_text(GOOD) is kept
    assert load.load_text(GOOD) is not kept


def test_a_drafting_tick_parses_each_queued_event_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each turn's `put` reads the outbox to skip what is queued already; a file once parsed is not parsed
    again while it is unchanged (before: the n-th turn parsed the files of the n-1 before it, and the
    push parsed them all twice more)."""
    import sys

    from hz.gitstate.events import Event
    from hz.gitstate.outbox import Outbox

    _bare, clone, environ, _log = _team(tmp_path, monkeypatch)
    parses = 0
    queued = 0
    parse, put = Event.parse_obj_checked.__func__, Outbox.put  # type: ignore[attr-defined]

    def counted_parse(cls: type[Event], raw: object) -> Event:
        nonlocal parses
        parses += sys._getframe(1).f_code.co_filename.endswith("outbox.py")
        return parse(cls, raw)  # type: ignore[no-any-return]

    def counted_put(self: Outbox, events: Any) -> int:
        nonlocal queued
        fresh: int = put(self, events)
        queued += fresh
        return fresh

    monkeypatch.setattr(Event, "parse_obj_checked", classmethod(counted_parse))
    monkeypatch.setattr(Outbox, "put", counted_put)
    report = tick(root=clone, environ=environ, now=HOUR)
    assert [e.get("disposition") for e in report.woken] == ["drafted"] * SLOTS
    assert queued >= SLOTS
    assert parses <= queued, (parses, queued)


def test_a_drafting_tick_reads_hz_toml_a_fixed_number_of_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a draft branches off (the fetched main's copy) was worked out twice a turn, each time reading
    `hz.toml` twice: the reads grew with the slots. Now a tick reads it the same number of times whatever
    its slots."""
    from hz.gitstate import settings

    _bare, clone, environ, _log = _team(tmp_path, monkeypatch)
    reads = 0
    read = settings.read_hz_toml

    def counted(*args: Any, **kw: Any) -> Any:
        nonlocal reads
        reads += 1
        return read(*args, **kw)

    monkeypatch.setattr(settings, "read_hz_toml", counted)
    report = tick(root=clone, environ=environ, now=HOUR)
    assert [e.get("disposition") for e in report.woken] == ["drafted"] * SLOTS
    assert reads < 2 * SLOTS, reads  # 27 for 5 slots before
