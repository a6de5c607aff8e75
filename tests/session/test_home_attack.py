"""Attacks on "a damaged home": homes others can swap, and files in it replaced by what they should not be.

Issue 14, finding 8. Each attack is made for real on disk (links, FIFOs, folders, modes, owners; the
tests run as root in CI, so owners are changed with chown) and run through the real CLI or `guarded`.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hz.cli import guarded
from hz.session.bodies import MAX_BODY_BYTES
from hz.session.index_damage import COMPANIONS
from hz.session.lock import lock
from hz.session.spine import read_spine
from tests.turn.agents import adopt, contract_text

Hz = Callable[..., Any]
TICK = ("tick", "--now", "2026-10-26T09:00Z")


def _crash() -> int:
    raise RuntimeError("an unforeseen bug")


def test_a_crash_log_is_never_written_into_a_home_others_can_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "shared"
    home.mkdir()
    home.chmod(0o777)
    monkeypatch.setenv("HZ_HOME", str(home))

    assert guarded(_crash) == 3

    assert list(home.iterdir()) == []
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):\n")
    assert err.endswith(
        "RuntimeError: an unforeseen bug\nhz hit a bug; the traceback is above (no crash log could be written)\n"
    )


def test_a_crash_log_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "new" / "home"
    monkeypatch.setenv("HZ_HOME", str(home))

    assert guarded(_crash) == 3

    [log] = (home / "logs").iterdir()
    modes = [stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "new", home, home / "logs", log)]
    assert modes == [0o700, 0o700, 0o700, 0o600]


@pytest.mark.parametrize("exists", [True, False])
def test_a_home_in_a_folder_others_can_write_is_refused(
    exists: bool, tmp_path: Path, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    # whoever can write the parent can rename the home away and put a folder of theirs in its place
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    home = shared / "hz"
    if exists:
        home.mkdir(mode=0o700)
    monkeypatch.setenv("HZ_HOME", str(home))

    result = hz(*TICK)

    assert (result.exit_code, result.out) == (1, "")
    assert result.err == (
        f"error: hz's data folder {home} is in {shared}, which other users can write (mode 0777): they could"
        f" replace it\n  hint: chmod go-w {shared}, or point HZ_HOME at a folder of your own\n"
    )
    assert list(shared.iterdir()) == ([home] if exists else [])
    assert not exists or list(home.iterdir()) == []


@pytest.mark.parametrize("group", ["mine", "another"])
def test_a_home_in_a_group_writable_folder_is_refused_unless_the_group_is_the_users_own(
    group: str, tmp_path: Path, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a umask of 002 makes ~/.local/share 0775, writable by the user's private group: only them
    share = tmp_path / "share"
    share.mkdir()
    share.chmod(0o775)
    if group == "another":
        if os.getuid() != 0:
            pytest.skip("giving a folder to another group needs root")
        os.chown(share, -1, os.getgid() + 4321)
    monkeypatch.setenv("HZ_HOME", str(share / "heinzel"))

    result = hz(*TICK)

    if group == "mine":
        assert (result.exit_code, result.err) == (0, "")
    else:
        assert (result.exit_code, result.err.splitlines()[0]) == (
            1,
            f"error: hz's data folder {share / 'heinzel'} is in {share}, which other users can write (mode 0775):"
            " they could replace it",
        )


def test_a_home_reached_through_a_link_is_checked_where_it_really_is(
    tmp_path: Path, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (shared / "hz").mkdir(mode=0o700)
    (tmp_path / "mine").mkdir(mode=0o700)
    (tmp_path / "mine" / "hz").symlink_to(shared / "hz")
    monkeypatch.setenv("HZ_HOME", str(tmp_path / "mine" / "hz"))

    result = hz(*TICK)

    assert (result.exit_code, result.err.splitlines()[0]) == (
        1,
        f"error: hz's data folder {tmp_path / 'mine' / 'hz'} is in {shared}, which other users can write"
        " (mode 0777): they could replace it",
    )


def test_a_home_in_a_shared_folder_with_the_sticky_bit_is_used(
    tmp_path: Path, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    # /tmp is shared and sticky: others may add names there but never rename or remove the user's
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setenv("HZ_HOME", str(shared / "hz"))

    result = hz(*TICK)

    assert (result.exit_code, result.err) == (0, "")
    assert stat.S_IMODE((shared / "hz").stat().st_mode) == 0o700


@pytest.mark.skipif(os.getuid() != 0, reason="the CI case: root in a container, the home under the runner's folder")
def test_root_uses_a_home_under_a_folder_of_another_user(
    tmp_path: Path, hz: Hz, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GitHub's container jobs run as root with HOME=/github/home, a folder of the runner's uid (1001)
    runner_home = tmp_path / "github" / "home"
    runner_home.mkdir(parents=True)
    os.chown(runner_home, 1001, 1001)
    monkeypatch.setenv("HZ_HOME", str(runner_home / ".local" / "share" / "heinzel"))

    result = hz(*TICK)

    assert (result.exit_code, result.err) == (0, "")


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_home_under_a_folder_of_another_user_is_refused_to_anyone_but_root(tmp_path: Path) -> None:
    from hz.config import UnsafeHome, _check_parents

    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 4321, 4321)
    with pytest.raises(UnsafeHome) as refused:
        _check_parents(theirs / "hz", 1234)  # as user 1234: the folder's owner could swap the home
    assert refused.value.render() == (
        f"error: hz's data folder {theirs / 'hz'} is in {theirs}, which belongs to another user (uid 4321): they"
        " could replace it\n  hint: point HZ_HOME at a folder of your own"
    )
    _check_parents(theirs / "hz", 0)  # root: the CI case above


# --- files of an agent replaced by what hz never writes ----------------------------------------------

ADOPTED = datetime(2026, 10, 26, 9, 0, tzinfo=UTC)
DUE = ("tick", "--now", "2026-10-30T15:30Z")  # the weekly note's first slot is due


def _hz(*argv: str) -> subprocess.CompletedProcess[str]:
    """A real `hz` process, so that a hang is a failed test (timeout) rather than a stuck run."""
    return subprocess.run(
        [sys.executable, "-m", "hz", *argv], capture_output=True, text=True, timeout=30, env=dict(os.environ)
    )


def _agent(repo: Path) -> Path:
    agent = adopt(contract_text(), now=ADOPTED)
    return Path(os.environ["HZ_HOME"]) / "heinzel" / agent


def _other_spine(agent: Path) -> Path:
    other = agent.parent / "hz-01M8QE1M2GFV87FX1VDR00OTHR"
    shutil.copytree(agent, other)
    return other / "session.jsonl"


SPINE_SWAPS: dict[str, tuple[Callable[[Path], None], str]] = {
    "named pipe": (lambda p: os.mkfifo(p), "a named pipe"),
    "link to /dev/zero": (lambda p: p.symlink_to("/dev/zero"), "a symbolic link"),
    "link to another spine": (lambda p: p.symlink_to(_other_spine(p.parent)), "a symbolic link"),
    "folder": (lambda p: p.mkdir(), "a folder"),
}


@pytest.mark.parametrize("swap", list(SPINE_SWAPS))
def test_a_spine_that_is_not_a_file_freezes_its_agent(swap: str, repo: Path) -> None:
    agent = _agent(repo)
    spine = agent / "session.jsonl"
    original = spine.read_bytes()
    spine.unlink()
    make, kind = SPINE_SWAPS[swap]
    make(spine)
    reason = f"seq 1: session.jsonl is {kind}, not a file hz wrote"

    tick = _hz(*DUE)
    assert (tick.returncode, tick.stderr, tick.stdout) == (
        1,
        "",
        f"weekly-note: frozen: its spine breaks at {reason}\n"
        "  hint: hz heinzel repair weekly-note sets the untrusted lines aside (or restore the line from a backup)\n",
    )
    listed = _hz("heinzel", "list")
    assert (listed.returncode, listed.stderr) == (0, "")
    assert listed.stdout.endswith(f"warning: the session of {agent.name} breaks at {reason} (hz heinzel show it)\n")
    repaired = _hz("heinzel", "repair", agent.name)
    assert (repaired.returncode, repaired.stdout) == (1, "")
    assert repaired.stderr.startswith(f"error: {agent.name}: its session breaks at {reason}\n")
    assert _hz("heinzel", "reindex").returncode == 0
    assert _hz("heinzel", "list").stdout == listed.stdout  # a rebuilt index still knows it, frozen
    assert not (repo / "notes").exists()  # no turn ran, nothing was drafted or spent

    spine.unlink() if not spine.is_dir() else spine.rmdir()  # the user puts the file back, as the hint says
    spine.write_bytes(original)
    assert _hz("heinzel", "reindex").returncode == 0
    assert _hz(*DUE).stdout == "weekly-note: started -> drafted\n"


LOCK_SWAPS: dict[str, tuple[Callable[[Path], None], str]] = {
    "folder": (lambda p: p.mkdir(), "a folder"),
    "link": (lambda p: p.symlink_to(p.parent.parent / "elsewhere"), "a symbolic link"),
    "named pipe": (lambda p: os.mkfifo(p), "a named pipe"),
}


@pytest.mark.parametrize("swap", list(LOCK_SWAPS))
def test_a_lock_that_is_not_a_file_is_named_and_nothing_runs(swap: str, repo: Path) -> None:
    agent = _agent(repo)
    lock = agent / "lock"
    lock.unlink(missing_ok=True)
    make, kind = LOCK_SWAPS[swap]
    make(lock)
    error = f"the lock {lock} is {kind}, not the file hz locks"

    tick = _hz(*DUE)
    assert (tick.returncode, tick.stderr, tick.stdout) == (1, "", f"weekly-note: error: {error}\n")
    repaired = _hz("heinzel", "repair", "weekly-note")
    assert (repaired.returncode, repaired.stdout, repaired.stderr) == (
        1,
        "",
        f"error: {error}\n  hint: no hz process can hold it: remove it (rm -r {lock}) and hz makes a new one\n",
    )
    assert not (agent.parent.parent / "elsewhere").exists() and not (repo / "notes").exists()
    shutil.rmtree(lock) if lock.is_dir() and not lock.is_symlink() else lock.unlink()
    assert _hz(*DUE).stdout == "weekly-note: started -> drafted\n"


@pytest.mark.parametrize("index", ["kept", "gone"])
@pytest.mark.parametrize("companion", ["-wal", "-shm"])
def test_a_link_beside_the_index_is_set_aside_and_what_it_points_at_is_untouched(
    companion: str, index: str, repo: Path, tmp_path: Path
) -> None:
    agent = _agent(repo)
    root = agent.parent
    assert _hz("heinzel", "list").returncode == 0  # an index with its log
    outside = tmp_path / "outside"
    outside.write_bytes(b"someone else's file\n")
    outside.chmod(0o644)
    if index == "gone":
        (root / "index.sqlite").unlink()
    for suffix in COMPANIONS:
        (root / f"index.sqlite{suffix}").unlink(missing_ok=True)
    (root / f"index.sqlite{companion}").symlink_to(outside)

    listed = _hz("heinzel", "list")

    assert (listed.returncode, listed.stdout.splitlines()[1].split()[:2]) == (0, ["me:weekly-note", "asleep"])
    [aside] = [p.name for p in root.iterdir() if ".corrupt-" in p.name and p.name.endswith(companion)]
    assert listed.stderr == (
        f"warning: the index {root / 'index.sqlite'} was damaged (a symbolic link in place of its {companion} file);"
        f" kept it as {aside.removesuffix(companion)} and rebuilt it from the spines\n"
    )
    assert (outside.read_bytes(), stat.S_IMODE(outside.stat().st_mode)) == (b"someone else's file\n", 0o644)
    assert (root / aside).readlink() == outside
    assert _hz(*DUE).stdout == "weekly-note: started -> drafted\n"


# --- turn bodies -------------------------------------------------------------------------------------

BODY_SWAPS: dict[str, Callable[[Path], None]] = {
    "named pipe": lambda p: os.mkfifo(p),
    "folder": lambda p: p.mkdir(),
    "link": lambda p: p.symlink_to(p.parent.parent.parent / "elsewhere.jsonl"),
    "huge": lambda p: os.truncate(p, MAX_BODY_BYTES + 1) if p.touch() is None else None,  # sparse: no disk
    "garbled": lambda p: p.write_bytes(b'{"hz_body":1,"turn":"t-1"}\n{"placing": \x00\n[1, 2]\n{"kept": 1}\n'),
}


@pytest.mark.parametrize("swap", list(BODY_SWAPS))
def test_a_body_that_is_not_what_hz_wrote_is_read_as_a_gap_without_waiting(swap: str, tmp_path: Path) -> None:
    body = tmp_path / "turns" / "t-1.jsonl"
    body.parent.mkdir()
    BODY_SWAPS[swap](body)
    # a child process, so that a read that waits forever fails the test instead of stopping the run
    code = "from pathlib import Path; from hz.session.bodies import read_body, body_ref; import sys\n"
    code += "r = read_body(Path(sys.argv[1]), 't-1'); print(r.status, r.records, body_ref(Path(sys.argv[1]), 't-1'))"
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=30)

    expected = {
        "link": "expired [] None",  # never followed: as if it were gone
        "garbled": "present [{'kept': 1}] BodyRef",
    }.get(swap, "changed [] None")
    assert (done.returncode, done.stderr, done.stdout.split("(")[0].strip()) == (0, "", expected)


@pytest.mark.parametrize("swap", ["named pipe", "folder", "link"])
def test_a_body_that_is_not_a_file_is_never_written_through(swap: str, tmp_path: Path) -> None:
    body = tmp_path / "turns" / "t-1.jsonl"
    body.parent.mkdir()
    BODY_SWAPS[swap](body)
    code = "from pathlib import Path; from hz.session.bodies import append_body; import sys\n"
    code += "append_body(Path(sys.argv[1]), 't-1', {'think': 'x'})"
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=30)

    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"hz.errors.HzError: the turn body {body} is not a file hz wrote (a link, a FIFO or a folder is in its place)"
    )
    assert not (tmp_path / "elsewhere.jsonl").exists()


# --- a repair and a tick at the same time --------------------------------------------------------------


def test_a_repair_and_a_tick_at_once_take_turns_on_the_lock(repo: Path) -> None:
    agent = _agent(repo)
    assert _hz(*DUE).stdout == "weekly-note: started -> drafted\n"
    spine = agent / "session.jsonl"
    lines = spine.read_bytes().split(b"\n")
    lines[4] = lines[4].replace(b'"step":"gather"', b'"step":"Gather"')  # seq 5 changed: frozen
    assert lines[4] != spine.read_bytes().split(b"\n")[4]
    spine.write_bytes(b"\n".join(lines))

    held = lock(agent / "lock", 0)  # both must wait for it, so that they start at once
    command = [sys.executable, "-m", "hz"]
    later = ("tick", "--now", "2026-10-30T16:00Z")
    started = [subprocess.Popen([*command, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for argv in (("heinzel", "repair", "weekly-note"), later)]  # fmt: skip
    time.sleep(1.0)
    os.close(held)
    (repair_out, repair_err), (tick_out, tick_err) = (p.communicate(timeout=60) for p in started)

    assert (started[0].returncode, repair_err) == (0, ""), repair_out
    assert repair_out.startswith("weekly-note: kept seq 1-")
    # the tick either saw the frozen spine before the repair, or the repaired one after it: never the tail
    assert tick_out in {
        "weekly-note: frozen: its spine breaks at seq 5: the line was changed after it was written\n"
        "  hint: hz heinzel repair weekly-note sets the untrusted lines aside (or restore the line from a backup)\n",
        "nothing due\n",  # the index had not seen the edit (same size), and the slot was done
        "weekly-note: resumed -> drafted\n",
        "weekly-note: started -> drafted\n",
    }, tick_err
    read = read_spine(spine)
    assert read.problems == [] and [e.kind for e in read.events].count("spine.repaired") == 1


# --- a folder hz keeps, replaced by a file ---------------------------------------------------------------


def test_a_file_where_the_index_marks_belong_is_named_by_every_command(repo: Path) -> None:
    agent = _agent(repo)
    pending = agent.parent / ".pending"
    shutil.rmtree(pending, ignore_errors=True)
    pending.write_text("not a folder\n")

    for argv in (DUE, ("heinzel", "list"), ("heinzel", "reindex"), ("heinzel", "repair", "weekly-note")):
        done = _hz(*argv)
        assert (done.returncode, done.stdout, done.stderr) == (
            1,
            "",
            f"error: {pending} is not a folder, but hz keeps its own files there\n  hint: move {pending} away\n",
        ), argv
    assert not (repo / "notes").exists()


def test_a_file_where_the_turn_bodies_belong_fails_that_agent_only(repo: Path) -> None:
    agent = _agent(repo)
    (agent / "turns").write_text("not a folder\n")

    tick = _hz(*DUE)

    turns = agent / "turns"  # the turn settles as failed (it never stays running); the tick goes on
    assert (tick.returncode, tick.stderr) == (0, "")
    assert tick.stdout == (
        f"weekly-note: started -> failed (gather): {turns} is not a folder, but hz keeps its own files there\n"
    )


INBOX_SWAPS: dict[str, Callable[[Path], None]] = {
    "named pipe": lambda p: os.mkfifo(p),
    "folder": lambda p: p.mkdir(),
    "garbled": lambda p: p.write_bytes(b'{"hz_request":1, "text": \x00'),
    "not a request": lambda p: p.write_bytes(b'["request_id"]'),
    "huge": lambda p: os.truncate(p, 2 * 1024 * 1024) if p.touch() is None else None,
}


@pytest.mark.parametrize("swap", list(INBOX_SWAPS))
def test_an_inbox_file_hz_did_not_write_is_passed_over_without_waiting(swap: str, tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from datetime import datetime, UTC\n"
        "from hz.session.inbox import put_request, list_requests\n"
        "agent = Path(sys.argv[1])\n"
        "put_request(agent, 'r-1', 'hello', now=datetime(2026, 10, 26, tzinfo=UTC))\n"
        "print([r.text for r in list_requests(agent)])"
    )
    (tmp_path / "inbox").mkdir()
    INBOX_SWAPS[swap](tmp_path / "inbox" / "r-0.json")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=30)

    assert (done.returncode, done.stderr, done.stdout) == (0, "", "['hello']\n")


def test_a_fifo_where_a_discovered_source_is_described_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "discovered").mkdir()
    code = (
        "import sys; from pathlib import Path; from hz.tick.discover import sources_for, _file_name\n"
        "import os; agent = Path(sys.argv[1]); os.mkfifo(agent / 'discovered' / _file_name('sha256:ab'))\n"
        "print(sources_for(agent, ['x@discovered:sha256:ab']))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=30)

    assert (done.returncode, done.stderr, done.stdout) == (0, "", "[]\n")


@pytest.mark.parametrize("swap", ["named pipe", "folder"])
def test_a_source_cache_entry_hz_did_not_write_is_a_miss_without_waiting(swap: str, tmp_path: Path) -> None:
    entry = tmp_path / "cache" / "0123abcd.json"
    entry.parent.mkdir()
    BODY_SWAPS[swap](entry)
    code = "import sys; from pathlib import Path; from hz.sources.cache import SourceCache\n"
    code += "print(SourceCache(Path(sys.argv[1])).read('0123abcd'))"
    argv = [sys.executable, "-c", code, str(tmp_path / "cache")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)

    assert (done.returncode, done.stderr, done.stdout) == (0, "", "None\n")
