"""Team state on git: lease acquire latency, events per second, and a lease race, on real remotes.

Run: .venv/bin/python bench/state.py [--quick]
     .venv/bin/python bench/state.py --archive [--quick]   (the tip before and after the archive step,
                                                           bench/state_archive.py)

Against a local bare remote (a path) and the same remote served on 127.0.0.1 by `git daemon`
(loopback) and by `git http-backend` behind a small HTTP server (http):
- one lease acquire (a fetch of the lease ref, bringing the other member's release, then a push):
  median and p95;
- events per second pushed by 1 and by 4 concurrent writer processes, 10 events per push;
  afterwards every event is counted on hz/state: lost and twice must both be 0;
- 8 processes racing for one lease over 50 slots through each transport: double winners.
Figures only; nothing here fails on time.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hz.gitstate import lease
from hz.gitstate.events import DraftPlaced, Event
from hz.gitstate.identity import whoami
from hz.gitstate.layout import STATE_REF
from hz.gitstate.reader import history
from hz.gitstate.remote import TeamRemote
from hz.gitstate.settings import StateSettings
from hz.gitstate.transport import read_protocol
from hz.gitstate.writer import StateWriter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the HTTP server lives with the tests
from loopback import serve

from tests.gitstate.smart_http import serve_http

BASE = datetime(2026, 10, 30, tzinfo=UTC)
SETTINGS = StateSettings(lease_ttl_s=3600, clock_skew_s=0, push_attempts=100)


def agent(n: int) -> str:
    return f"hz-01JB{n:022d}"


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def draft(lease_id: str, n: int, token: int) -> Event:
    key = f"{lease_id}@v1@{n}@state:reports/r{n}.md"
    data = DraftPlaced(turn=f"t-01JB{n:022d}", key=key, asset=f"state:reports/r{n}.md", hash=sha(str(n)))
    return Event.make("draft.placed", id=lease_id, key=key, ts="2026-10-30T00:00:00Z", lease=lease_id, token=token,
                      data=data)  # fmt: skip


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def member(root: Path, name: str, remote: str) -> TeamRemote:
    clone = root / f"clone-{name}"
    if not clone.exists():
        git("init", "-q", str(clone))
    return TeamRemote(clone, remote, {**os.environ, "HZ_HOME": str(root / f"home-{name}")})


def slot(i: int) -> str:
    return (BASE + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- git daemon ----------------------------------------------------------------------------------------


# --- measurements ----------------------------------------------------------------------------------------


def acquire_times(root: Path, remote: str, rounds: int, *, alone: bool = False) -> list[float]:
    """Acquire, release, acquire again. `alone`: the same member each time, so the lease's tip is local
    (a daemon taking its own lease slot after slot: ls-remote and push). Otherwise two members take
    turns, and every acquire must also fetch the other's release first (ls-remote, fetch, push)."""
    ann, bob = member(root, "ann", remote), member(root, "bob", remote)
    who = {"ann": whoami({"HZ_HANDLE": "@ann"}), "bob": whoami({"HZ_HANDLE": "@bob"})}
    lease_id = agent(2 if alone else 1)
    times = []
    for i in range(rounds):
        team, name = (ann, "ann") if alone or i % 2 == 0 else (bob, "bob")
        now = datetime.now(UTC)
        start = time.perf_counter()
        outcome = lease.acquire(team, lease_id, slot=slot(i), identity=who[name], role="owner", now=now,
                                settings=SETTINGS)  # fmt: skip
        times.append(time.perf_counter() - start)
        assert outcome.won, outcome
        lease.renew(team, lease_id, now, SETTINGS, release=True)
    return times


def floor_ls_remote(root: Path, remote: str, rounds: int, version: str | None = None) -> list[float]:
    """What git alone costs for one look at the remote's refs, with the protocol version hz reads with
    (or `version`: over git:// v2 shows the delayed-ACK stall that made hz read with v0 there)."""
    options = ("-c", f"protocol.version={version}") if version else read_protocol(remote)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        git(*options, "ls-remote", remote, "refs/hz/lease/none")
        times.append(time.perf_counter() - start)
    return times


def floor_push(root: Path, remote: str, rounds: int) -> list[float]:
    """What git alone costs for a push of one small commit to one ref."""
    clone = root / "floor"
    if not clone.exists():
        git("init", "-q", str(clone))
    times = []
    for i in range(rounds):
        git("-C", str(clone), "commit", "-q", "--allow-empty", "-m", str(i))
        start = time.perf_counter()
        git("-C", str(clone), "push", "-q", remote, f"HEAD:refs/heads/floor-{root.name}")
        times.append(time.perf_counter() - start)
    return times


def writers(root: Path, remote: str, count: int, events: int, batch: int, base: int) -> dict[str, float]:
    folder = root / f"meet-{count}"
    folder.mkdir()
    procs = []
    for n in range(count):
        args = [sys.executable, __file__, "--worker", str(root), remote, str(folder), f"w{count}-{n}",
                agent(base + n), str(events), str(batch)]  # fmt: skip
        procs.append(subprocess.Popen(args))
    while len(list(folder.glob("ready-*"))) < count:
        time.sleep(0.01)
    (folder / "go").touch()
    for proc in procs:
        proc.wait()
    spans = [json.loads(p.read_text()) for p in folder.glob("span-*")]
    wall = max(s["end"] for s in spans) - min(s["start"] for s in spans)
    pushes = sum(s["pushes"] for s in spans)
    lost, twice = count_events(root, remote, [agent(base + n) for n in range(count)], events)
    return {"events_per_s": count * events / wall, "wall_s": wall, "pushes": pushes, "lost": lost, "twice": twice}


def count_events(root: Path, remote: str, agents: list[str], events: int) -> tuple[int, int]:
    team = member(root, "reader", remote)
    tip = team.current(STATE_REF)
    keys = [e.event.key for e in history(team.repo, tip)] if tip else []
    expected = {draft(a, i, 1).key for a in agents for i in range(events)}
    return len(expected - set(keys)), len(keys) - len(set(keys))


def worker(root: str, remote: str, folder: str, name: str, lease_id: str, events: int, batch: int) -> None:
    team = member(Path(root), name, remote)
    outcome = lease.acquire(team, lease_id, slot=slot(0), identity=whoami({"HZ_HANDLE": "@" + name}),
                            role="owner", now=datetime.now(UTC), settings=SETTINGS)  # fmt: skip
    assert outcome.won and outcome.record is not None
    writer = StateWriter(team, SETTINGS)
    meet = Path(folder)
    (meet / f"ready-{name}").touch()
    while not (meet / "go").exists():
        time.sleep(0.005)
    start, pushes = time.time(), 0
    for first in range(0, events, batch):
        writer.queue(*(draft(lease_id, n, outcome.record.token) for n in range(first, min(events, first + batch))))
        pushes += writer.flush(datetime.now(UTC)).pushes
    (meet / f"span-{name}").write_text(json.dumps({"start": start, "end": time.time(), "pushes": pushes}))


def race(root: Path, remote: str, racers: int, slots: int) -> dict[str, int]:
    """8 processes race for one lease at every slot; the winner releases once all have tried."""
    folder = root / "race"
    folder.mkdir()
    procs = [subprocess.Popen([sys.executable, __file__, "--racer", str(root), remote, str(folder), f"r{n}",
                               str(slots), str(racers)]) for n in range(racers)]  # fmt: skip
    double = none = 0
    tokens: list[int] = []
    for i in range(slots):
        (folder / f"go-{i}").touch()
        while len(list(folder.glob(f"res-{i}-*"))) < racers:
            time.sleep(0.005)
        won = [p.read_text() for p in folder.glob(f"res-{i}-*") if p.read_text().startswith("won")]
        double += len(won) > 1
        none += not won
        tokens += [int(w.split()[1]) for w in won]
        while won and not (folder / f"rel-{i}").exists():
            time.sleep(0.005)
    for proc in procs:
        proc.wait()
    rising = all(a < b for a, b in itertools.pairwise(tokens))
    return {"slots": slots, "double_winners": double, "no_winner": none, "tokens_rising": int(rising)}


def racer(root: str, remote: str, folder: str, name: str, slots: int, total: int) -> None:
    team = member(Path(root), name, remote)
    meet = Path(folder)
    me = whoami({"HZ_HANDLE": "@" + name})
    for i in range(slots):
        while not (meet / f"go-{i}").exists():
            time.sleep(0.005)
        outcome = lease.acquire(team, agent(7), slot=slot(i), identity=me, role="owner", now=datetime.now(UTC),
                                settings=SETTINGS)  # fmt: skip
        token = outcome.record.token if outcome.record else 0
        tmp = meet / f".res-{i}-{name}"
        tmp.write_text(f"{outcome.status} {token}")
        os.replace(tmp, meet / f"res-{i}-{name}")
        if outcome.won:
            while len(list(meet.glob(f"res-{i}-*"))) < total:
                time.sleep(0.005)
            lease.renew(team, agent(7), datetime.now(UTC), SETTINGS, release=True)
            (meet / f"rel-{i}").touch()


def show(label: str, times: list[float]) -> float:
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(f"{label:<46} median {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms   (n={len(ms)})")
    return statistics.median(ms)


def measure(root: Path, remotes: dict[str, str], rounds: int, events: int, slots: int) -> dict[str, dict[str, float]]:
    """Every figure for every transport; returns the medians and rates the comparison needs."""
    seen: dict[str, dict[str, float]] = {label: {} for label in remotes}
    for label, remote in remotes.items():
        show(f"floor: git ls-remote ({label})", floor_ls_remote(root / label, remote, rounds))
        if remote.startswith("git://"):
            show(f"floor: git ls-remote, protocol v2 ({label})", floor_ls_remote(root / label, remote, rounds, "2"))
        show(f"floor: git push, one ref ({label})", floor_push(root / label, remote, rounds))
        seen[label]["own"] = show(f"lease acquire, own lease ({label})",
                                  acquire_times(root / label, remote, rounds, alone=True))  # fmt: skip
        seen[label]["other"] = show(
            f"lease acquire, after another ({label})", acquire_times(root / label, remote, rounds)
        )
    for number, (label, remote) in enumerate(remotes.items()):
        for count in (1, 4):
            (root / f"w{count}-{label}").mkdir()
            base = 100 * count + 1000 * number  # fresh agents: one bare repository serves every transport
            figures = writers(root / f"w{count}-{label}", remote, count, events, 10, base)
            seen[label][f"w{count}"] = figures["events_per_s"]
            print(f"{count} writer(s) x {events} events, 10/push ({label}): "
                  f"{figures['events_per_s']:6.1f} events/s"
                  f"   wall {figures['wall_s']:.2f} s   pushes {figures['pushes']}"
                  f"   lost {figures['lost']}   twice {figures['twice']}")  # fmt: skip
    for label, remote in remotes.items():
        (root / f"race-{label}").mkdir()
        started = time.perf_counter()
        result = race(root / f"race-{label}", remote, 8, slots)
        print(f"8 racers x {result['slots']} slots ({label}): double winners {result['double_winners']}"
              f"   slots without a winner {result['no_winner']}"
              f"   tokens rising {bool(result['tokens_rising'])}"
              f"   {time.perf_counter() - started:.1f} s")  # fmt: skip
    return seen


def compare(seen: dict[str, dict[str, float]]) -> None:
    """Smart HTTP against git daemon, both on loopback: which network transport to test and to run on."""
    daemon, http = seen["loopback"], seen["http"]
    print(f"http vs git daemon: acquire own {http['own']:.1f} vs {daemon['own']:.1f} ms"
          f", after another {http['other']:.1f} vs {daemon['other']:.1f} ms"
          f", 4 writers {http['w4']:.1f} vs {daemon['w4']:.1f} events/s")  # fmt: skip
    if http["own"] < 0.8 * daemon["own"] and http["other"] < 0.8 * daemon["other"] and http["w4"] > daemon["w4"]:
        print("smart HTTP is clearly faster than git daemon on loopback (git daemon's push stalls on Nagle)")


def main(quick: bool) -> None:
    rounds, events, slots = (10, 50, 10) if quick else (40, 200, 50)
    with tempfile.TemporaryDirectory(prefix="hz-bench-state-") as tmp:
        root = Path(tmp)
        served = root / "served"
        served.mkdir()
        git("init", "-q", "--bare", str(served / "team.git"))
        daemon, port = serve(served)
        try:
            with serve_http(served) as http_port:
                remotes = {
                    "path": str(served / "team.git"),
                    "loopback": f"git://127.0.0.1:{port}/team.git",
                    "http": f"http://127.0.0.1:{http_port}/team.git",
                }
                print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
                compare(measure(root, remotes, rounds, events, slots))
                print(f"load average at end: {os.getloadavg()[0]:.1f}")
        finally:
            daemon.terminate()
            daemon.wait()


if __name__ == "__main__":
    argv = sys.argv
    if argv[1:2] == ["--worker"]:
        worker(argv[2], argv[3], argv[4], argv[5], argv[6], int(argv[7]), int(argv[8]))
    elif argv[1:2] == ["--racer"]:
        racer(argv[2], argv[3], argv[4], argv[5], int(argv[6]), int(argv[7]))
    elif "--archive" in argv:
        from state_archive import run

        with tempfile.TemporaryDirectory(prefix="hz-bench-archive-") as tmp:
            run(Path(tmp), 50, 15 if "--quick" in argv else 60, timedelta(days=8))
    else:
        main("--quick" in sys.argv)
