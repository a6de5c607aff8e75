"""The compile cache against a careless or hostile neighbour: what a compile depends on beyond its text,
what stands where the file or its folder should be, runs cut short, and two writers at once.

A hit must give what a compile in the reading process gives; anything in the file's place may cost a
run its compiles, never its result, its time or anything outside the file.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

import hz
from hz.contract import compile_cache
from hz.contract.compile_cache import ENV, FILE, kept_in
from hz.contract.load import load_contract, load_text
from tests.contract.samples import GOOD, variant

OTHER = GOOD.replace("name: weekly-digest", "name: other-digest")
# a missing key: its hint names the JSON Schema inside the installed package, a path of this process
NO_TITLE = variant("  title: Weekly change digest\n", "")


def compiled_in(folder: Path, *texts: str) -> compile_cache.Kept:
    with kept_in({ENV: str(folder)}) as kept:
        assert kept is not None
        for n, text in enumerate(texts):
            load_text(text, path=f"workflows/c{n}.prose.md")
    return kept


def entries(folder: Path) -> set[str]:
    return {orjson.loads(line)[0] for line in (folder / FILE).read_bytes().splitlines()[1:]}


def test_a_hit_names_the_schema_of_the_hz_that_reads_it(tmp_path: Path) -> None:
    """The same hz source installed elsewhere (a new runner image, another checkout) writes the file;
    this hz must not hand out hints naming the other install's files."""
    elsewhere = tmp_path / "site"
    shutil.copytree(Path(hz.__file__).parent, elsewhere / "hz", ignore=shutil.ignore_patterns("__pycache__"))
    folder = tmp_path / "cache"
    script = (
        "import sys\nfrom hz.contract.compile_cache import kept_in\nfrom hz.contract.load import load_text\n"
        f"with kept_in({{'{ENV}': sys.argv[1]}}):\n    load_text(sys.stdin.read())\n"
    )
    environ = {**os.environ, "PYTHONPATH": str(elsewhere)}
    run = [sys.executable, "-c", script, str(folder)]
    subprocess.run(run, input=NO_TITLE, text=True, env=environ, cwd=tmp_path, check=True)
    assert str(elsewhere) in (folder / FILE).read_text()
    with kept_in({ENV: str(folder)}):
        found = load_text(NO_TITLE)
    fresh = load_text(NO_TITLE)
    assert any(str(Path(hz.__file__).parent) in d.hint for d in fresh.diagnostics)
    assert found == fresh


@pytest.mark.parametrize("mode", [0o755, 0o1777])
def test_a_folder_that_exists_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    """HZ_COMPILE_CACHE pointed at a folder others use (the workspace, /tmp): hz adds its file, 0600,
    and leaves the folder's mode alone; a folder hz makes is 0700."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    compiled_in(shared, GOOD)
    assert stat.S_IMODE(shared.stat().st_mode) == mode
    assert stat.S_IMODE((shared / FILE).stat().st_mode) == 0o600
    made = tmp_path / "new" / "cache"
    compiled_in(made, GOOD)
    assert stat.S_IMODE(made.stat().st_mode) == 0o700 and stat.S_IMODE(made.parent.stat().st_mode) == 0o700


def test_a_block_cut_short_or_compiling_nothing_keeps_what_the_file_held(tmp_path: Path) -> None:
    """A tick that fails half way (a remote down, a budget spent) or compiles nothing must not prune the
    file to what it got to: the Actions cache saves a key once, so the next runs would all pay for it."""
    folder = tmp_path / "cache"
    compiled_in(folder, GOOD, OTHER)
    both = entries(folder)
    assert len(both) == 2
    compiled_in(folder)
    assert entries(folder) == both
    third = GOOD.replace("name: weekly-digest", "name: third-digest")
    with pytest.raises(RuntimeError), kept_in({ENV: str(folder)}):
        load_text(GOOD)
        load_text(third)
        raise RuntimeError("the tick failed half way")
    assert entries(folder) == both | {compile_cache.key_of(third, "team", None)}
    compiled_in(folder, GOOD)  # a run that ends well keeps what it used, no more
    assert entries(folder) == {compile_cache.key_of(GOOD, "team", None)}


def _place(path: Path, what: str, victim: Path) -> None:
    if what == "fifo":
        os.mkfifo(path)
    elif what == "folder":
        path.mkdir()
    elif what == "link-to-zero":
        path.symlink_to("/dev/zero")
    elif what == "link-to-file":
        path.symlink_to(victim)
    elif what == "dangling-link":
        path.symlink_to(path.parent / "nowhere")


@pytest.mark.parametrize("what", ["fifo", "folder", "link-to-zero", "link-to-file", "dangling-link"])
def test_whatever_stands_in_the_file_s_place_costs_no_time_and_is_never_written_through(
    tmp_path: Path, what: str
) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    victim = tmp_path / "victim"
    victim.write_bytes(b"someone else's\n")
    _place(folder / FILE, what, victim)
    started = time.monotonic()
    kept = compiled_in(folder, GOOD)
    assert kept.misses == 1 and time.monotonic() - started < 5
    assert victim.read_bytes() == b"someone else's\n" and not (tmp_path / "nowhere").exists()
    if what != "folder":  # a link or a FIFO is replaced by the file; a folder stays, and nothing is kept
        assert not (folder / FILE).is_symlink() and entries(folder) == {compile_cache.key_of(GOOD, "team", None)}
    assert load_text(GOOD).ok


def test_a_million_lines_of_junk_cost_a_run_seconds_at_most(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    compiled_in(folder, GOOD)
    header = (folder / FILE).read_bytes().splitlines()[0]
    junk = b"\n".join([b"[1]", b'["k", {}]', b"{", b"\xff", b"[" * 2000] * 200_000)
    (folder / FILE).write_bytes(header + b"\n" + junk + b"\n")
    started = time.monotonic()
    kept = compiled_in(folder, GOOD)
    assert time.monotonic() - started < 5 and kept.misses == 1
    assert entries(folder) == {compile_cache.key_of(GOOD, "team", None)}


def test_a_hit_under_a_file_name_gives_what_loading_that_file_gives(tmp_path: Path) -> None:
    """The stem check and the label: a cached compile of a text under one name, read under another."""
    folder = tmp_path / "cache"
    right = tmp_path / "weekly-digest.prose.md"
    wrong = tmp_path / "renamed.prose.md"
    for path in (right, wrong):
        path.write_text(GOOD)
    for first, second in ((right, wrong), (wrong, right)):
        fresh = (load_contract(first), load_contract(second))
        with kept_in({ENV: str(folder / first.name)}):
            load_contract(first)
        with kept_in({ENV: str(folder / first.name)}):
            assert load_contract(second) == fresh[1]
            assert load_contract(first) == fresh[0]
    broken = tmp_path / "broken.prose.md"
    broken.write_text(NO_TITLE)
    with kept_in({ENV: str(folder / "broken")}):
        load_text(NO_TITLE)
    with kept_in({ENV: str(folder / "broken")}):
        assert load_contract(broken) == load_contract(broken)
