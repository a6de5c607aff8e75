"""A team-year: what a tick, an Actions run and a lint cost after a year of history, beside one day of it.

Run: .venv/bin/python bench/year.py [--scale 1.0] [--contracts 50] [--keep]

Two hook-guarded remotes served on 127.0.0.1 by `git daemon`, each with `main` holding `--contracts` hourly
team contracts (10 owned by @priya, the rest by @omar) and a history written with `git fast-import`: for
every hour and contract one turn (turn.started, turn.finished, draft.placed, and the draft.superseded of the
hour before: 4 events), one lease commit per acquisition, and the last hour's drafts pending on their
branches. One remote holds a day of that, the other a year (`--scale` shrinks the year: 0.1 is 36.5 days).
Event paths come from `hz.gitstate.layout.event_path` and draft branches from `hz.review.branches`, so the
history follows the layout hz writes.

Then, on each remote, with real `hz` processes (the offline runner drafts), after the team's `hz state
compact` (its default keep, what a team runs) from a member's whole clone:
- priya's drafting tick of 10 slots (her clone made as the tick workflow makes one: main, then the tips),
  its guarded push (the git push it made, timed by a `git` shim), an idle tick after it;
- an Actions run: the tick workflow's checkout and steps, then its first tick (adopting every contract):
  bytes in the clone and seconds;
- `hz state lint --since <tip before priya's next tick>` in a whole clone, and the state-lint workflow's run
  for that push (its checkout and steps: what it fetches, bytes and seconds), `hz state log --since 1d` and
  `hz drafts` in priya's clone, and the spine bytes her agents added in the next hour's tick (per drafted
  turn, and per agent of omar's, which writes a skip line a slot);
- the cron-and-script baseline: write a file, commit, push, per slot, to a plain remote.
Figures only; nothing here fails on time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import orjson

from hz.canonical import canonical_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loopback import serve
from year_history import END, environ, git, hz, lease_line, make_remote, turn_events


def shimmed(env: dict[str, str], folder: Path) -> tuple[dict[str, str], Path]:
    """`env` with a `git` that logs each process's start, end and arguments, then runs the real one."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "git.log"
    real = shutil.which("git")
    script = folder / "git"
    script.write_text(f'#!/bin/sh\ns=$(date +%s.%N)\n"{real}" "$@"\nrc=$?\n'
                      f'printf "%s %s %s\\n" "$s" "$(date +%s.%N)" "$*" >> "{log}"\nexit $rc\n')  # fmt: skip
    script.chmod(0o755)
    return {**env, "PATH": f"{folder}{os.pathsep}{env['PATH']}"}, log


def pushes(log: Path) -> list[float]:
    found = []
    for entry in log.read_text().splitlines() if log.exists() else []:
        parts = entry.split(" ", 2)  # a commit message's later lines are lines of their own: skipped
        if len(parts) == 3 and parts[0].replace(".", "").isdigit() and " push " in f" {parts[2]} ":
            found.append(float(parts[1]) - float(parts[0]))
    return found


def workflow_checkout(url: str, clone: Path) -> None:
    """What the tick workflow does before `hz tick`: actions/checkout of main alone, then its own steps."""
    from ruamel.yaml import YAML

    from hz.commands.init_files import TICK_WORKFLOW

    git("init", "-q", str(clone))
    git("remote", "add", "origin", url, cwd=clone)
    git("fetch", "-q", "--no-tags", "--depth=1", "origin", "+refs/heads/main:refs/remotes/origin/main", cwd=clone)
    git("checkout", "-q", "-B", "main", "refs/remotes/origin/main", cwd=clone)
    steps = YAML(typ="safe").load(TICK_WORKFLOW)["jobs"]["tick"]["steps"]
    for step in steps:
        if step.get("name") == "Install hz":
            break
        if "run" in step:
            env = {**os.environ, **{k: "main" for k in step.get("env", {})}}
            subprocess.run(["bash", "-e", "-c", step["run"]], cwd=clone, env=env, check=True, capture_output=True)


def lint_workflow(url: str, folder: Path, before: str) -> tuple[float, int, str]:
    """A push run of the state-lint workflow: actions/checkout of main alone, then its `run:` steps as
    written, `hz` on PATH; (seconds, bytes in the clone, what the lint said)."""
    from ruamel.yaml import YAML

    from hz.commands.init_files import STATE_LINT_WORKFLOW

    tools = folder / "bin"
    tools.mkdir(parents=True)
    (tools / "hz").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m hz "$@"\n')
    (tools / "hz").chmod(0o755)
    env = {**environ(folder / "hz"), "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    filled = {"${{ github.event.repository.default_branch }}": "main", "${{ github.event.before }}": before,
              "${{ github.event_name == 'workflow_dispatch' }}": "false"}  # fmt: skip
    output, clone = folder / "output", folder / "clone"
    output.write_text("")
    began = time.perf_counter()
    git("init", "-q", str(clone))
    git("remote", "add", "origin", url, cwd=clone)
    git("fetch", "-q", "--no-tags", "--depth=1", "origin", "+refs/heads/main:refs/remotes/origin/main", cwd=clone)
    git("checkout", "-q", "-B", "main", "refs/remotes/origin/main", cwd=clone)
    said = ""
    for step in YAML(typ="safe").load(STATE_LINT_WORKFLOW)["jobs"]["lint"]["steps"]:
        if "run" not in step or step.get("name") == "Install hz":
            continue
        base = dict(line.split("=", 1) for line in output.read_text().splitlines()).get("base", "")
        values = {**filled, "${{ steps.fetch.outputs.base }}": base}
        step_env = {**env, "GITHUB_OUTPUT": str(output), **{k: values.get(v, v) for k, v in step["env"].items()}}
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=clone, env=step_env, capture_output=True,
                              text=True, check=False)  # fmt: skip
        said = f"exit {done.returncode}: {done.stderr.strip()[-70:]}"
    return time.perf_counter() - began, clone_bytes(clone), said


def clone_bytes(clone: Path) -> int:
    return sum(p.stat().st_size for p in (clone / ".git" / "objects").rglob("*") if p.is_file())


def spine_sizes(home: Path) -> dict[str, int]:
    """Each agent's spine size by its name: a turn's body records (its draft's text) are not the spine."""
    sizes: dict[str, int] = {}
    for spine in home.glob("heinzel/*/session.jsonl"):
        with spine.open("rb") as lines:
            sizes[str(orjson.loads(lines.readline())["d"]["name"])] = spine.stat().st_size
    return sizes


def spine_growth(before: dict[str, int], after: dict[str, int], ran: set[str]) -> str:
    """Bytes per drafted turn of the agents that ran, and per slot of the rest (one skip line each)."""
    grown = {name: size - before.get(name, 0) for name, size in after.items()}
    own = [grown[name] for name in ran if name in grown]
    rest = [size for name, size in grown.items() if name not in ran]
    per_turn = sum(own) / max(len(own), 1)
    per_skip = sum(rest) / max(len(rest), 1)
    return f"{per_turn:.0f} B per turn ({len(own)} turns); {per_skip:.0f} B per agent not run ({len(rest)})"


def woken(done: subprocess.CompletedProcess[str]) -> list[str]:
    try:
        return [f"{e.get('action')}:{e.get('disposition') or e.get('reason') or ''}"[:40]
                for e in json.loads(done.stdout)["woken"]]  # fmt: skip
    except (ValueError, KeyError):
        return [f"failed: {done.stdout[-300:]}{done.stderr[-300:]}"]


def measure(base: Path, name: str, url: str, bare: Path) -> dict[str, str]:
    """Every figure on one remote."""
    out: dict[str, str] = {}
    folder = base / f"{name}-run"
    # a member's whole clone: the team's daily `hz state compact` runs there first, the lint at the end
    whole = folder / "whole"
    git("clone", "-q", url, str(whole))
    took, done = hz(["state", "compact"], whole, environ(folder / "whole-hz"))  # the default keep, as a team runs it
    out["hz state compact, from a clone"] = f"{took:.2f} s: {done.stdout.strip()[-60:] or done.stderr[-90:]}"
    priya = folder / "priya"
    workflow_checkout(url, priya)
    env = environ(folder / "priya-hz", HZ_HANDLE="@priya")
    hz(["tick", "--now", (END - timedelta(minutes=30)).isoformat(), "--json"], priya, env)  # adopts, nothing due
    shim_env, log = shimmed(env, folder / "shim1")
    took, done = hz(["tick", "--now", (END + timedelta(minutes=1)).isoformat(), "--json"], priya, shim_env)
    drafted = sum(1 for w in woken(done) if w == "started:drafted")
    out["drafting tick (10 slots)"] = f"{took:.2f} s ({drafted} drafted, {took / max(drafted, 1):.2f} s/slot)"
    pushed = pushes(log)
    total = f"{len(pushed)} pushes, {sum(pushed):.2f} s"
    out["guarded push"] = f"{pushed[-1]:.2f} s the state's; {total}" if pushed else "none"
    took, done = hz(["tick", "--now", (END + timedelta(minutes=2)).isoformat(), "--json"], priya, env)
    out["idle tick"] = f"{took:.2f} s"

    actions = folder / "actions"
    began = time.perf_counter()
    workflow_checkout(url, actions)
    run_env = environ(folder / "actions-hz", GITHUB_ACTIONS="true", GITHUB_RUN_ID="900")
    _, done = hz(["tick", "--now", (END + timedelta(minutes=3)).isoformat(), "--json"], actions, run_env)
    took = time.perf_counter() - began
    out["Actions clone + first tick"] = f"{clone_bytes(actions) / 1e6:.2f} MB, {took:.2f} s"

    before = git("--git-dir", str(bare), "rev-parse", "refs/heads/hz/state").strip()
    spine_before = spine_sizes(folder / "priya-hz")
    took, done = hz(["tick", "--now", (END + timedelta(minutes=61)).isoformat(), "--json"], priya, env)
    ran = {str(e["agent"]) for e in json.loads(done.stdout)["woken"] if e.get("action") == "started"}
    out["spine bytes"] = spine_growth(spine_before, spine_sizes(folder / "priya-hz"), ran)

    git("fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*", "+refs/hz/lease/*:refs/hz/lease/*", cwd=whole)
    took, done = hz(["state", "lint", "--since", before], whole, environ(folder / "whole-hz"))
    out["lint of the last push"] = f"{took:.2f} s (exit {done.returncode}: {done.stderr.strip()[-80:]})"
    took, size, said = lint_workflow(url, folder / "lint-run", before)
    out["state-lint workflow, push run"] = f"{size / 1e6:.2f} MB, {took:.2f} s ({said})"
    took, done = hz(["state", "log", "--since", "1d", "--no-fetch"], priya, env)
    if done.returncode == 2:  # no --since in this hz yet: the whole log
        took, done = hz(["state", "log", "--no-fetch"], priya, env)
        out["hz state log --since 1d"] = f"{took:.2f} s, {len(done.stdout) / 1e3:.0f} KB (whole log: no --since)"
    else:
        out["hz state log --since 1d"] = f"{took:.2f} s, {len(done.stdout) / 1e3:.0f} KB"
    took, done = hz(["drafts"], priya, env)
    out["hz drafts"] = f"{took:.2f} s (exit {done.returncode})"
    return out


def cron_baseline(base: Path, url_of: str, slots: int) -> float:
    """Seconds per slot for a script that writes a page, commits and pushes it (a plain remote)."""
    bare = base / "cron.git"
    git("init", "-q", "--bare", str(bare))
    work = base / "cron"
    git("init", "-q", str(work))
    env = environ(base / "cron-home")
    (work / "README").write_text("cron\n")
    git("add", "-A", cwd=work, env=env)
    git("commit", "-q", "-m", "start", cwd=work, env=env)
    git("push", "-q", url_of, "HEAD:main", cwd=work, env=env)
    began = time.perf_counter()
    for n in range(slots):
        (work / f"page-{n}.md").write_text(f"slot {n}\n")
        git("add", f"page-{n}.md", cwd=work, env=env)
        git("commit", "-q", "-m", f"slot {n}", cwd=work, env=env)
        git("push", "-q", url_of, "HEAD:main", cwd=work, env=env)
    return (time.perf_counter() - began) / slots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="the year's length: 1.0 is 365 days")
    parser.add_argument("--contracts", type=int, default=50)
    parser.add_argument("--keep", action="store_true", help="leave the repositories in the temporary folder")
    migrate = "the history uncompacted, then the timed first `hz state compact` (the migration)"
    parser.add_argument("--migrate", action="store_true", help=migrate)
    args = parser.parse_args()
    for _, sample in [*turn_events(3, END, 7), ("", lease_line(3, END, 7))]:
        assert sample == canonical_json(json.loads(sample)) + b"\n", sample
    # git's automatic gc runs in the foreground: none is left writing into the folder removed at the end
    os.environ.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="gc.autoDetach", GIT_CONFIG_VALUE_0="false")
    base = Path(tempfile.mkdtemp(prefix="hz-year-"))
    daemon, port = serve(base)
    try:
        year_hours = max(25, int(365 * 24 * args.scale))
        figures: dict[str, dict[str, str]] = {}
        sizes: dict[str, str] = {}
        for name, hours in (("day", 24), ("year", year_hours)):
            url = f"git://127.0.0.1:{port}/{name}.git"
            bare, took, steps = make_remote(base, name, url, args.contracts, hours, daily=not args.migrate)
            events = hours * args.contracts * 4 - args.contracts
            packed = sum(p.stat().st_size for p in (bare / "objects").rglob("*") if p.is_file())
            sizes[name] = (f"{hours} h, {events:,} events, {packed / 1e6:.1f} MB packed, {steps} daily archive "
                           f"steps, built in {took:.1f} s")  # fmt: skip
            print(f"built {name}: {sizes[name]}", flush=True)
            figures[name] = measure(base, name, url, bare)
        cron = cron_baseline(base, f"git://127.0.0.1:{port}/cron.git", 10)
    finally:
        daemon.terminate()
        daemon.wait()
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    layout = ("uncompacted (`--migrate`): the first `hz state compact` is the migration" if args.migrate
              else "compacted daily at 04:07 UTC as the tick workflow does")  # fmt: skip
    print(f"layout: {layout}")
    print(f"history: day = {sizes['day']}; year = {sizes['year']}")
    width = max(len(k) for k in figures["day"])
    print(f"{'':{width}}  {'one day':<45}  a year (scale {args.scale}), history ending {END:%Y-%m-%dT%H:%MZ}")
    for what in figures["day"]:
        print(f"{what:{width}}  {figures['day'][what]:<45}  {figures['year'].get(what, '')}")
    print(f"{'cron-and-script baseline':{width}}  {cron:.2f} s per slot (write, commit, push)")
    if args.keep:
        print(f"kept in {base}")


if __name__ == "__main__":
    main()
