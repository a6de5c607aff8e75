"""The year benchmark's history: a team's hz/state, lease chains and pending drafts written with
`git fast-import` from hz's own path and branch functions, by default as the tick workflow's daily
`hz state compact` leaves it (each day's hourly commits, then at 04:07 UTC the archive steps hz plans and
builds on that tip). Used by bench/year.py and by the test that lints what it writes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

from hz.gitstate.layout import LEASE_FILE, event_path, lease_ref
from hz.review.branches import branch_name

# the first hour the history does not hold: two hours ago, so the ticks at END + 61 minutes are in the past of
# the hook's clock (events ahead of it are refused) and `hz state compact`'s horizon counts from today
END = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)
OWN = 10  # contracts of @priya: her drafting tick's slots
FP = "sha256:" + "c" * 64
CONTRACT = """---
name: pulse-{n}
kind: responsibility
id: {cid}
description: An hourly pulse for the year benchmark.
hz:
  schema: 1
  title: Pulse {n}
  owner: "{owner}"
  scope: team
  schedule: "0 * * * *"
  outputs:
    pulse:
      target: "state:pulse/{n}/{{slot:%Y%m%dT%H%M}}.md"
      facets: [summary]
---

# Pulse {n}

### Goal

The team's pulse is drafted every hour.

### Maintains

- `pulse`: the pulse.

#### summary

Material: what moved.

### Done when

- [ ] the hour is covered
"""
ROSTER = '[team.members]\n"@priya" = ["priya@example.com"]\n"@omar" = ["omar@example.com"]\n'


def cid(n: int) -> str:
    return f"01KD{n:022d}"


def turn_id(n: int) -> str:
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    digits = ""
    while True:
        n, r = divmod(n, 32)
        digits = alphabet[r] + digits
        if n == 0:
            return "01M" + digits.rjust(23, "0")


def git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr}")
    return done.stdout


def stamp(when: datetime) -> int:
    return int(when.timestamp())


def minute(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%MZ")


def second(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def line(value: dict[str, object]) -> bytes:
    """The event's stored line. orjson with sorted keys writes these values (ASCII text, integers, one
    decimal that is its shortest form) byte for byte as hz's canonical JSON does, ~20x faster; checked once
    at the start (`main`)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS) + b"\n"


# ---------------------------------------------------------------------------------------------- history


def turn_events(n: int, hour: datetime, index: int) -> list[tuple[str, bytes]]:
    """The 4 events one hourly turn of contract `n` leaves on hz/state: (path, line)."""
    hz_id, token, turn = f"hz-{cid(n)}", index + 1, turn_id(index * 1000 + n)
    slot_key = f"{hz_id}@{minute(hour)}"
    asset = f"state:pulse/{n}/{hour:%Y%m%dT%H%M}.md"
    draft_key = f"{hz_id}@v1@{minute(hour)}@{asset}"
    ts, done = second(hour + timedelta(minutes=1)), second(hour + timedelta(minutes=1, seconds=20))
    draft_hash = "sha256:" + hashlib.sha256(page(n, hour)).hexdigest()  # what its branch holds, were it pending
    base = {"cause": "schedule", "causes": ["schedule"], "contract_fp": FP, "keys": [slot_key], "turn": turn}
    ended = {**base, "disposition": "drafted", "draft_hash": draft_hash, "duration_s": 20.5}
    envelope = {"id": hz_id, "lease": hz_id, "token": token, "v": 1}
    found = [
        ("turn.started", slot_key, ts, {**base, "contract_version": 1, "role": "owner", "token": token}),
        ("turn.finished", slot_key, done, ended),
        ("draft.placed", draft_key, done, {"asset": asset, "hash": draft_hash, "key": draft_key, "turn": turn}),
    ]
    if index:
        before = hour - timedelta(hours=1)
        old_asset = f"state:pulse/{n}/{before:%Y%m%dT%H%M}.md"
        old_key = f"{hz_id}@v1@{minute(before)}@{old_asset}"
        found.append(("draft.superseded", old_key, done, {"asset": old_asset, "by": draft_key, "key": old_key}))
    return [(event_path(hz_id, kind, key), line({**envelope, "kind": kind, "key": key, "ts": when, "data": data}))
            for kind, key, when, data in found]  # fmt: skip


def page(n: int, hour: datetime) -> bytes:
    """The draft's page: its hash is what the turn's draft.placed says."""
    return f"# Pulse {n} at {minute(hour)}\n\nWhat moved.\n".encode()


def lease_line(n: int, hour: datetime, index: int) -> bytes:
    owner = "@priya/m-0000000a" if n < OWN else "@omar/m-0000000b"
    ts = second(hour + timedelta(minutes=1))
    return line({"acquired": ts, "expires": second(hour + timedelta(minutes=2)), "holder": owner,
                 "lease": f"hz-{cid(n)}", "role": "owner", "slot": second(hour), "state": "released",
                 "token": index + 1, "v": 1})  # fmt: skip


def state_commits(contracts: int, start: datetime, indexes: range, parent: str | None) -> Iterator[bytes]:
    """The hz/state commits of the hours `indexes` (counted from `start`): one per member and hour, the
    first continuing `parent` when one is given (fast-import's `from`)."""
    for index in indexes:
        hour = start + timedelta(hours=index)
        for members in (range(min(OWN, contracts)), range(OWN, contracts)):
            changed = [event for n in members for event in turn_events(n, hour, index)]
            if changed:
                yield commit("refs/heads/hz/state", hour + timedelta(minutes=2), f"hz-state: {len(changed)} events",
                             changed, parent=parent)  # fmt: skip
                parent = None


def side_stream(contracts: int, hours: int, main: str) -> Iterator[bytes]:
    """The lease chains (one commit per acquisition) and the last hour's pending drafts on their branches
    (each a commit on `main`)."""
    start = END - timedelta(hours=hours)
    for n in range(contracts):
        ref = lease_ref(f"hz-{cid(n)}")
        for index in range(hours):
            hour = start + timedelta(hours=index)
            yield commit(ref, hour + timedelta(minutes=1), f"lease hz-{cid(n)} token {index + 1} released",
                         [(LEASE_FILE, lease_line(n, hour, index))], replace=True)  # fmt: skip
    last = END - timedelta(hours=1)
    for n in range(contracts):
        asset = f"state:pulse/{n}/{last:%Y%m%dT%H%M}.md"
        key = f"hz-{cid(n)}@v1@{minute(last)}@{asset}"
        trailers = f"Hz-Draft: {key}\nHz-Slot: {minute(last)}\nHz-Contract: {cid(n)}\nHz-Output: pulse"
        message = f"hz draft: pulse-{n} · pulse for {minute(last)}\n\n{trailers}"
        yield commit(f"refs/heads/{branch_name(cid(n), 'pulse', key)}", last + timedelta(minutes=2), message,
                     [(asset.removeprefix("state:"), page(n, last))], parent=main)  # fmt: skip


def fast_import(bare: Path, stream: Iterator[bytes]) -> None:
    importer = subprocess.Popen(["git", "--git-dir", str(bare), "fast-import", "--quiet"], stdin=subprocess.PIPE)
    assert importer.stdin is not None
    for chunk in stream:
        importer.stdin.write(chunk)
    importer.stdin.close()
    if importer.wait() != 0:
        raise SystemExit("fast-import failed")


COMPACT_AT = timedelta(hours=4, minutes=7)
"""The tick workflow's daily schedule (`7 4 * * *`), whose run ends with `hz state compact`."""


def compact_daily(bare: Path, contracts: int, hours: int) -> int:
    """hz/state as a team's daily compaction leaves it: each day's hourly commits, then at 04:07 UTC the
    archive steps hz's own code plans and builds on that tip at that moment (`hz state compact` with its
    default keep), the ref moved to the last step. The archive steps written."""
    import pygit2

    from hz.gitstate import archive

    start = END - timedelta(hours=hours)
    tip: str | None = None
    steps = 0
    first = 0
    while first < hours:
        # the batch runs through the hour whose commit the next 04:07 follows (or the last hour)
        last = first
        while last < hours - 1 and (start + timedelta(hours=last)).hour != 4:
            last += 1
        fast_import(bare, state_commits(contracts, start, range(first, last + 1), tip))
        repo = pygit2.Repository(str(bare))
        tip = str(repo.references["refs/heads/hz/state"].target)
        hour = start + timedelta(hours=last)
        if hour.hour == 4:
            now = hour.replace(hour=0) + COMPACT_AT
            plans = archive.plans(repo, tip, now)
            for step in plans if plans[0].moved else []:
                step.tip = tip
                tip = archive.build(repo, step, now)
                steps += 1
            repo.references.create("refs/heads/hz/state", tip, force=True)
        if (last // 24) % 30 == 29:  # a pack per day: folded now and then so lookups stay quick
            git("--git-dir", str(bare), "repack", "-dq", "--geometric=2")
        first = last + 1
    return steps


def commit(ref: str, when: datetime, message: str, files: list[tuple[str, bytes]], *, replace: bool = False,
           parent: str | None = None) -> bytes:  # fmt: skip
    text = message.encode() + b"\n"
    parts = [f"commit {ref}\nauthor hz <hz> {stamp(when)} +0000\ncommitter hz <hz> {stamp(when)} +0000\n".encode(),
             f"data {len(text)}\n".encode(), text]  # fmt: skip
    if parent is not None:
        parts.append(f"from {parent}\n".encode())
    if replace:
        parts.append(b"deleteall\n")
    for path, data in files:
        parts.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
    parts.append(b"\n")
    return b"".join(parts)


def make_remote(base: Path, name: str, url: str, contracts: int, hours: int, *, daily: bool = True
                ) -> tuple[Path, float, int]:  # fmt: skip
    """The bare remote `name` with main, the hook and `hours` of history, compacted daily as a team's tick
    workflow does (or, not `daily`, all of it on the tip, as if no compaction had ever run); seconds the
    history took, and its archive steps."""
    bare = base / f"{name}.git"
    git("init", "-q", "--bare", str(bare))
    git("--git-dir", str(bare), "symbolic-ref", "HEAD", "refs/heads/main")
    seed = base / f"{name}-seed"
    git("init", "-q", str(seed))
    (seed / "hz.toml").write_text(f'[state]\nremote = "{url}"\ntick_interval_s = 300\nlease_ttl_s = 600\n\n{ROSTER}')
    (seed / "workflows").mkdir()
    for n in range(contracts):
        owner = "@priya" if n < OWN else "@omar"
        (seed / "workflows" / f"pulse-{n}.prose.md").write_text(CONTRACT.format(n=n, cid=cid(n), owner=owner))
    git("add", "-A", cwd=seed)
    when = (END - timedelta(hours=hours + 1)).isoformat()
    who = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_NAME": "rita",
           "GIT_AUTHOR_EMAIL": "rita@example.com", "GIT_COMMITTER_NAME": "rita",
           "GIT_COMMITTER_EMAIL": "rita@example.com"}  # fmt: skip
    git("commit", "-q", "-m", "the team's contracts", cwd=seed, env=who)
    git("push", "-q", str(bare), "HEAD:main", cwd=seed)
    main = git("rev-parse", "HEAD", cwd=seed).strip()
    began = time.perf_counter()
    if daily:
        steps = compact_daily(bare, contracts, hours)
    else:
        fast_import(bare, state_commits(contracts, END - timedelta(hours=hours), range(hours), None))
        steps = 0
    fast_import(bare, side_stream(contracts, hours, main))
    # with the pack's reverse index on disk, as git 2.41 and later write it by default: without it every
    # upload-pack sorts the offsets of all the pack's objects (~0.2 s a fetch at a year's 5.8 M objects)
    git("--git-dir", str(bare), "-c", "pack.writeReverseIndex=true", "repack", "-adq")
    took = time.perf_counter() - began
    hz(["state", "install-hook", str(bare)], base, environ(base / f"{name}-installer"))
    return bare, took, steps


# ---------------------------------------------------------------------------------------------- runs


def environ(home: Path, **extra: str) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if k not in ("HZ_HANDLE", "HZ_HOME", "GITHUB_ACTIONS", "GITHUB_RUN_ID")}
    return {**kept, "HZ_HOME": str(home), "GIT_AUTHOR_NAME": "hz", "GIT_AUTHOR_EMAIL": "hz@localhost",
            "GIT_COMMITTER_NAME": "hz", "GIT_COMMITTER_EMAIL": "hz@localhost", **extra}  # fmt: skip


def hz(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hz", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)  # fmt: skip
    return time.perf_counter() - began, done
