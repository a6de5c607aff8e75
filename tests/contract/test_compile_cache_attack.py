"""The compile cache against a careless or hostile neighbour: what stands where the file or its folder
should be, runs cut short, two writers at once, texts spelled alike and entries moved or inflated.

A hit must give what a compile in the reading process gives; anything in the file's place may cost a
run its compiles, never its result, its time or anything outside the file.
"""

from __future__ import annotations

import os
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
    junk = b"\n".join([b"[1]", b'["k", {}]', b"{", b"\xff", b"[" * 40] * 200_000)  # a million lines, 12 MB
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


WRITER = """
import sys
from hz.contract.compile_cache import kept_in
from hz.contract.load import load_text
given = sys.stdin.read()
texts = [given.replace("name: weekly-digest", f"name: {sys.argv[2]}-{n}") for n in range(3)]
for _ in range(15):
    with kept_in({"HZ_COMPILE_CACHE": sys.argv[1]}):
        for text in texts:
            assert load_text(text).ok
"""


def test_two_writers_at_once_leave_one_whole_file_and_no_leftovers(tmp_path: Path) -> None:
    """Two ticks share a folder (a self-hosted runner): each write is one replace, so a reader sees one
    writer's whole file or the other's; the entries the loser had cost its next run their compiles."""
    folder = tmp_path / "cache"
    run = [sys.executable, "-c", WRITER, str(folder)]
    writers = [
        subprocess.Popen([*run, name], stdin=subprocess.PIPE, text=True, cwd=Path(hz.__file__).parent.parent)
        for name in ("left", "right")
    ]
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write(GOOD)
        writer.stdin.close()
    seen = 0
    while any(w.poll() is None for w in writers):
        with compile_cache.kept_in({ENV: str(folder)}) as kept:  # a third tick reading meanwhile
            assert kept is not None and not kept.changed  # every line it read was whole
            seen += len(kept.entries)
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    assert sorted(p.name for p in folder.iterdir()) == [FILE]  # no temporary file left behind
    kept = compiled_in(folder)
    assert len(kept.entries) == 3 and not kept.changed


# The same contract as an editor on another system may save it: each normalizes to GOOD's text, but the
# key hashes the text as given, so each is its own entry and a hit is always of the very same text.
ACCENTED = GOOD.replace("for people who missed the week", "for people who missed the caf\u00e9")
SPELLINGS = {
    "lf": ACCENTED,
    "crlf": ACCENTED.replace("\n", "\r\n"),
    "cr": ACCENTED.replace("\n", "\r"),
    "bom": "\ufeff" + ACCENTED,
    "nfd": ACCENTED.replace("\u00e9", "e\u0301"),
    "tabs-and-nbsp": ACCENTED.replace("# Weekly", "#\u00a0Weekly"),
}


def test_texts_that_normalize_alike_are_kept_apart_and_each_hit_is_its_own_compile(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    first = compiled_in(folder, *SPELLINGS.values())
    assert first.misses == len(SPELLINGS) and len(entries(folder)) == len(SPELLINGS)
    with kept_in({ENV: str(folder)}) as kept:
        found = {name: load_text(text, path=f"{name}.prose.md") for name, text in SPELLINGS.items()}
    assert kept is not None and (kept.hits, kept.misses) == (len(SPELLINGS), 0)
    for name, text in SPELLINGS.items():
        fresh = load_text(text, path=f"{name}.prose.md")
        assert found[name] == fresh, name
        if fresh.contract is not None and found[name].contract is not None:
            assert found[name].contract.agent_body == fresh.contract.agent_body, name  # type: ignore[union-attr]


def test_an_entry_moved_under_another_text_s_key_is_the_trust_boundary(tmp_path: Path) -> None:
    """Whoever can write the file can make a text compile as another text did: the entry validates, and
    nothing short of compiling again ties it to its key. What it can give is bounded by `from_plain`: a
    contract whose frontmatter the model accepts (the act step applies the path rule again); it cannot
    make a tick crash. The Actions cache a run on main reads is written by runs on main only."""
    folder = tmp_path / "cache"
    compiled_in(folder, GOOD, OTHER)
    header, *lines = (folder / FILE).read_bytes().splitlines()
    plain = {orjson.loads(line)[0]: orjson.loads(line)[1] for line in lines}
    good, other = (compile_cache.key_of(text, "team", None) for text in (GOOD, OTHER))
    swapped = [orjson.dumps([good, plain[other]]), orjson.dumps([other, plain[good]])]
    (folder / FILE).write_bytes(b"\n".join([header, *swapped]) + b"\n")
    with kept_in({ENV: str(folder)}):
        moved = load_text(OTHER)
    assert moved.contract is not None and moved.contract.name == "weekly-digest"  # GOOD's, for OTHER's text
    plain[good]["draft"]["frontmatter"]["hz"]["scope"] = "everyone"  # what the model refuses is refused
    (folder / FILE).write_bytes(b"\n".join([header, orjson.dumps([other, plain[good]])]) + b"\n")
    with kept_in({ENV: str(folder)}) as kept:
        again = load_text(OTHER)
    assert kept is not None and (kept.hits, kept.misses) == (0, 1) and again == load_text(OTHER)


def _deep(depth: int) -> object:
    value: object = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def test_entries_nested_deeper_than_json_writes_are_kept_or_dropped_never_a_crash(tmp_path: Path) -> None:
    """orjson reads 1,024 levels and writes 254: a line that reads may not write again. Neither a junk
    line nor an entry that validates (a top-level x- key holds anything) may crash the tick."""
    from tests.contract.test_plain import FULL

    folder = tmp_path / "cache"
    compiled_in(folder, FULL)
    header, line = (folder / FILE).read_bytes().splitlines()
    key, plain = orjson.loads(line)
    plain["draft"]["frontmatter"]["x-other"] = _deep(600)
    deep = b'["%s", %s]' % (key.encode(), _dump_deep(plain))
    junk = b'["%s", {"a": %s}]' % (b"0" * 64, b"[" * 600 + b"1" + b"]" * 600)
    (folder / FILE).write_bytes(b"\n".join([header, junk, deep]) + b"\n")
    compiled_in(folder)  # compiles nothing: keeps what it read
    with kept_in({ENV: str(folder)}) as kept:
        found = load_text(FULL)
    assert kept is not None and kept.hits == 1 and found.contract is not None
    with pytest.raises(RuntimeError), kept_in({ENV: str(folder)}):
        raise RuntimeError("cut short")


def _dump_deep(plain: object) -> bytes:
    """JSON of `plain` at any depth (orjson refuses past 254 levels)."""
    import json

    return json.dumps(plain).encode()


@pytest.mark.parametrize("folder", ["/proc/self/hz-cache", "/proc/1", "/dev/null", "/dev/null/cache", "/dev/zero"])
def test_a_folder_nobody_can_write_costs_the_compiles_only(folder: str) -> None:
    before = os.stat(folder).st_mode if os.path.exists(folder) else None
    kept = compiled_in(Path(folder), GOOD, GOOD)
    assert (kept.hits, kept.misses) == (1, 1)  # the block still shares its compiles
    assert (os.stat(folder).st_mode if os.path.exists(folder) else None) == before


BOMB = """
import resource, sys, time
from hz.contract.compile_cache import kept_in
from hz.contract.load import load_text
text = sys.stdin.read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.process_time()
with kept_in({"HZ_COMPILE_CACHE": sys.argv[1]}):
    assert load_text(text).ok
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(time.process_time() - started, grown // 1024)
"""


@pytest.mark.parametrize("line", [b"", b"1"])
def test_a_file_of_millions_of_empty_or_tiny_lines_costs_neither_time_nor_memory(tmp_path: Path, line: bytes) -> None:
    """An honest file has one line per contract, each a few KB; one of 30 MB of newlines or of `1` lines
    (10-15 million of them) took a tick seconds and hundreds of MB before its compiles even started."""
    folder = tmp_path / "cache"
    compiled_in(folder, GOOD)
    header = (folder / FILE).read_bytes().splitlines()[0]
    (folder / FILE).write_bytes(header + b"\n" + (line + b"\n") * (30_000_000 // (len(line) + 1)))
    run = [sys.executable, "-c", BOMB, str(folder)]
    done = subprocess.run(
        run, input=GOOD, text=True, capture_output=True, cwd=Path(hz.__file__).parent.parent, check=True
    )
    seconds, megabytes = (float(v) for v in done.stdout.split())
    assert seconds < 2 and megabytes < 100, done.stdout
    assert entries(folder) == {compile_cache.key_of(GOOD, "team", None)}


@pytest.mark.parametrize("whose", ["another-user", "world-writable", "group-writable"])
def test_a_file_someone_else_could_write_is_not_read(tmp_path: Path, whose: str) -> None:
    """HZ_COMPILE_CACHE on a folder several users share (a self-hosted runner's /tmp): a file another
    user put there, or one anybody may rewrite, is their word, not a compile of ours."""
    if whose == "another-user" and os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    folder = tmp_path / "cache"
    compiled_in(folder, GOOD, OTHER)
    header, *lines = (folder / FILE).read_bytes().splitlines()
    plain = {orjson.loads(line)[0]: orjson.loads(line)[1] for line in lines}
    good, other = (compile_cache.key_of(text, "team", None) for text in (GOOD, OTHER))
    (folder / FILE).write_bytes(header + b"\n" + orjson.dumps([good, plain[other]]) + b"\n")
    if whose == "another-user":
        os.chown(folder / FILE, 65534, 65534)
    else:
        (folder / FILE).chmod(0o666 if whose == "world-writable" else 0o620)
    with kept_in({ENV: str(folder)}) as kept:
        found = load_text(GOOD)
    assert kept is not None and kept.hits == 0
    assert found.contract is not None and found.contract.name == "weekly-digest"
    assert (folder / FILE).stat().st_uid == os.geteuid() and stat.S_IMODE((folder / FILE).stat().st_mode) == 0o600
