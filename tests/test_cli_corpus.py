"""The command-line attack corpus: what a hostile or clumsy user types never crashes hz (exit 3) or hangs it.

Each row is one command line against a copy of a small team repository (hz init, an adopted team
contract, an approved personal agent, a bare remote with the pre-receive hook), with files planted
first where the row needs them: FIFOs, links to /dev/zero, folders where files go, bytes that are not
UTF-8. A row names the exit code it must end with (1: an error, 2: usage) and a fragment of the message
that must appear; every row also must not print a traceback nor leave a crash log, within a timeout.
The rows that exited 3 or hung before issue 14 are marked `# was 3` and `# hung`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hz.cli import params
from hz.commands.tick import EARLIEST_NOW, LATEST_NOW, parse_now
from hz.errors import HzError
from hz.textfile import UnreadableFile, read_text_file
from tests.turn.agents import contract_text

LONG = "x" * 100_000
NOT_UTF8 = b"---\nname: x\n\xff\xfe bad\n---\n"
TIMEOUT_S = 20  # far above any row's run time; a row that reaches it hung


@dataclass(frozen=True)
class Link:
    target: str


@dataclass(frozen=True)
class Fifo:
    pass


@dataclass(frozen=True)
class Folder:
    pass


Plant = bytes | str | Link | Fifo | Folder


@dataclass(frozen=True)
class Row:
    """`argv` run in the repository; `{run}` stands for the folder of this run, `{agent}` for the id
    of the personal agent. `says` must appear in what hz printed (stderr, else stdout)."""

    argv: tuple[str, ...]
    code: int
    says: str
    plant: Mapping[str, Plant] = field(default_factory=dict)  # paths relative to the run folder
    env: Mapping[str, str | None] = field(default_factory=dict)
    cwd: str = "repo"


def row(*argv: str, code: int, says: str, plant: Mapping[str, Plant] | None = None,
        env: Mapping[str, str | None] | None = None, cwd: str = "repo") -> Row:  # fmt: skip
    return Row(argv, code, says, plant or {}, env or {}, cwd)


WF = "repo/workflows/"
NOW_RANGE = "is not between the years 1970 and 8999 (UTC)"
TEXT_TOO_LONG = "is 100000 characters long; one sentence is at most 1000"
NOT_AN_ID = "is not a Heinzelmännchen id"
NO_SUCH_AGENT = "no Heinzelmännchen named nope"
V1 = "hz-home/heinzel/{agent}/contract/v1.prose.md"
MOVE_ASIDE = "hint: move it aside; `hz codeowners --write` writes a regular file in its place"
CONFIG = "hz-config/config.toml"
TOO_DEEP = "the frontmatter nests deeper than 32 levels"
NO_HOME = "error: hz cannot make or use its folder"
VERSION = "the version must be a whole number from 1 to 999999999"
TOO_LONG_AGO = "is longer than 3650d, the longest duration hz takes"
INPUT = '  inputs:\n    log:\n      source: "git:."\n      window: {}\n  outputs:'


def deep(opener: str, closer: str) -> str:
    """A frontmatter nested 100,000 levels: the C parser's composer recursed in C until the process died."""
    return f"---\nname: deep\nx-deep: {opener * 100_000}{closer * 100_000}\n---\n# Deep\n"


def costly(table: str) -> str:
    """A personal contract with `table` (YAML under `hz:`, indented by two) before its outputs."""
    return contract_text("costly").replace("  outputs:", f"  {table}\n  outputs:")


def wide(window: str) -> str:
    """A contract whose one input reaches `window` back."""
    return contract_text("wide").replace("  outputs:", INPUT.format(window))


ROWS: list[Row] = [
    # the root and unknown commands
    row("", code=2, says="No such command ''"),
    row("\u202eabc", code=2, says="No such command"),
    row("--bogus", code=2, says="No such option '--bogus'"),
    # tick --now, through the fast path and through click
    row("tick", "--now", "garbage", code=1, says="--now 'garbage' is not an ISO 8601 time"),
    row("tick", "--now", "", code=1, says="is not an ISO 8601 time"),
    row("tick", "--now", LONG, code=1, says="is not an ISO 8601 time"),
    row("tick", "--now", "2026-12-07T09:00:00Z\n", code=1, says="is not an ISO 8601 time"),
    row("tick", "--now", "9999-12-31T23:59:59Z", code=1, says=f"--now '9999-12-31T23:59:59Z' {NOW_RANGE}"),  # was 3
    row("tick", "--now", "0001-01-01T00:00:00Z", code=1, says=NOW_RANGE),  # was 3
    row("tick", "--json", "--now", "8999-12-31T23:59:59-23:59", code=1, says=NOW_RANGE),
    row("tick", "--now=--json", code=1, says="is not an ISO 8601 time"),
    row("tick", "--now", code=2, says="Option '--now' requires an argument"),
    row("tick", "extra", code=2, says="Got unexpected extra argument (extra)"),
    # daemon run
    row(
        "daemon", "run", "--interval", "nan", "--ticks", "1", code=2, says="must be a number of seconds, not nan"
    ),  # hung
    row("daemon", "run", "--interval", "inf", code=2, says="inf is not in the range 0.05<=x<=86400.0"),  # was 3
    row("daemon", "run", "--interval", "1e309", code=2, says="inf is not in the range"),  # was 3
    row("daemon", "run", "--interval", "99999999999", code=2, says="is not in the range 0.05<=x<=86400.0"),  # was 3
    row("daemon", "run", "--interval", "-1", code=2, says="is not in the range"),
    row("daemon", "run", "--ticks", "0", code=2, says="0 is not in the range x>=1"),
    # workflow
    row("workflow", "show", "--", "../../etc/passwd", code=1, says="hint: `hz workflow list` shows every contract"),
    row("workflow", "show", "--", "", code=1, says="hint: `hz workflow list` shows every contract"),
    row("workflow", "validate", "/dev/zero", code=1, says="is a character device, not a regular file"),
    row("workflow", "validate", "{run}/fifo", plant={"fifo": Fifo()}, code=1, says="is a FIFO, not a regular file"),
    row("workflow", "validate", "{run}/bad.md", plant={"bad.md": NOT_UTF8}, code=1, says="bad.md"),
    row("workflow", "new", "--", "../x", code=1, says="'../x' is not a contract name"),
    row("workflow", "new", "--", "x\x1b[31m", code=1, says="'x\\x1b[31m' is not a contract name"),
    row("workflow", "new", "fine", "--owner", "not a handle", code=1, says="hint: pass --owner @your-github-handle"),
    row("workflow", "new", "fine", "--owner", "", code=1, says="cannot write a skeleton with owner '@'"),
    row(
        "workflow",
        "new",
        "planted",
        plant={WF + "planted.prose.md": Link("{run}/victim")},
        code=1,
        says="planted.prose.md already exists",
    ),
    row(
        "workflow",
        "migrate",
        plant={WF + "x.prose.md": Link("/dev/zero")},
        code=1,
        says="workflows/x.prose.md:1:1  HZC001  file\n  the file is a link that leads outside the repository",
    ),  # hung
    row(
        "workflow",
        "migrate",
        plant={WF + "x.prose.md": Fifo()},
        code=1,
        says="workflows/x.prose.md:1:1  HZC001  file\n  the file is a FIFO, not a regular file",
    ),  # hung
    row(
        "workflow",
        "migrate",
        plant={WF + "x.prose.md": NOT_UTF8},
        code=1,
        says="workflows/x.prose.md:3:1  HZC001  file\n  the file is not UTF-8 text (byte 12 is 0xff)",
    ),  # was 3
    row(
        "workflow",
        "migrate",
        plant={
            WF + "x.prose.md": "---\na: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
            + "".join(f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcde", "bcdef", strict=True))
            + "---\n# x\n"
        },
        code=1,
        says="x.prose.md:2:1  HZC001  frontmatter\n  the frontmatter holds more than",
    ),  # was 3
    row(
        "workflow",
        "validate",
        plant={WF + "wide.prose.md": wide("99999999999w")},
        code=1,
        says=f"wide.prose.md:15:15  HZC002  hz.inputs.log.window\n  '99999999999w' {TOO_LONG_AGO}\n  hint: write "
        "at most 3650d (or 521w): ten years is the longest window, recheck, backoff or timeout\n"
        "3 contracts checked: 2 errors",  # the other contracts are still checked; its body too (HZC103)
    ),  # was 3
    row(
        "workflow", "validate", plant={WF + "wide.prose.md": wide("9" * 5000 + "w")}, code=1, says=TOO_LONG_AGO
    ),  # was 3
    row(
        "graph",
        plant={WF + "wide.prose.md": wide("500000w")},
        code=0,
        says="some contracts have errors; `hz workflow validate` shows them",
    ),  # was 3
    row(
        "workflow",
        "migrate",
        plant={WF + "wide.prose.md": wide("99999999999w")},
        code=1,
        says="wide.prose.md:15:15  HZC002  hz.inputs.log.window",
    ),  # was 3
    row(
        "workflow",
        "validate",
        plant={WF + "deep.prose.md": deep("[", "]")},
        code=1,
        says=f"workflows/deep.prose.md:3:41  HZC001  frontmatter\n  {TOO_DEEP}\n",
    ),  # crashed
    row("workflow", "validate", plant={WF + "deep.prose.md": deep("{", "}")}, code=1, says=TOO_DEEP),  # crashed
    row(
        "graph",
        plant={WF + "deep.prose.md": "---\nname: deep\nx-deep:\n  " + "- " * 100_000 + "x\n---\n"},
        code=0,
        says="some contracts have errors",
    ),  # crashed
    row(
        "heinzel", "new", "deep", "--from", "{run}/deep.md", plant={"deep.md": deep("[", "]")}, code=1, says=TOO_DEEP
    ),  # crashed
    row("workflow", "list", plant={WF + "x.prose.md": Link("/dev/zero")}, code=0, says="repo-digest"),
    row("graph", plant={WF + "x.prose.md": Fifo()}, code=0, says="some contracts have errors"),
    # codeowners
    row(
        "codeowners",
        "--write",
        plant={"repo/CODEOWNERS": Folder()},
        code=1,
        says="CODEOWNERS: is a folder, not a file hz can replace",
    ),  # was 3
    row(
        "codeowners",
        "--check",
        plant={"repo/CODEOWNERS": b"\xff\xfe"},
        code=1,
        says="CODEOWNERS is out of date; run `hz codeowners --write`",
    ),  # was 3
    row("codeowners", "--check", plant={"repo/CODEOWNERS": Fifo()}, code=1, says=MOVE_ASIDE),
    row(
        "codeowners",
        "--check",
        plant={"repo/CODEOWNERS": Link("/dev/zero")},
        code=1,
        says="CODEOWNERS: is a character device, not a regular file",
    ),
    # init
    row(
        "init",
        plant={"repo/workflows": b"a file"},
        code=1,
        says="repo/workflows is not a folder, so hz init cannot write",
    ),  # was 3
    row("init", plant={"repo/.github": b"a file"}, code=1, says="hint: move .github aside, then run hz init again"),
    row("init", "--owner", "", code=1, says="not a GitHub handle: ''"),
    row("init", "--owner", "not a handle", code=1, says="hint: pass --owner @user or @org/team"),
    row("init", cwd=".", code=1, says="hint: run hz from inside a team repository"),
    # state
    row("state", "install-hook", "--", "-x", code=2, says="Directory '-x' does not exist"),
    row("state", "install-hook", "{run}/fifo", plant={"fifo": Fifo()}, code=1, says="error:"),
    row("state", "lint", "--range", "--upload-pack=touch {run}/pwned", code=1, says="not a range"),
    row("state", "log", "--no-fetch", "--id", "garbage", code=1, says=f"'garbage' {NOT_AN_ID}"),
    row("state", "log", "--no-fetch", "--since", "yesterday", code=1, says="--since 'yesterday' is no age"),
    row("state", "compact", "--keep", "0", code=1, says="--keep 0 is below 1 day"),
    row("state", "log", "--no-fetch", "--id", "", code=1, says=f"'' {NOT_AN_ID}"),
    row("state", "log", "--no-fetch", "--id", LONG, code=1, says=f"'{'x' * 40}…' {NOT_AN_ID}"),
    row("state", "log", "--no-fetch", "--id", "{agent}", code=0, says=""),
    row("state", "log", "--remote", "--upload-pack=touch {run}/pwned", code=1, says="error:"),
    # lease
    row("lease", "acquire", "--slot", "2026-12-07T08:00:00Z", "--", "garbage", code=1, says="error:"),
    row("lease", "acquire", "{agent}", "--slot", "garbage", code=1, says="error:"),
    row(
        "lease",
        "acquire",
        "{agent}",
        "--slot",
        "2026-12-07T08:00:00Z",
        "--due",
        "0001-01-01T00:00:00Z",
        code=1,
        says="--due '0001-01-01T00:00:00Z' is not between the years 2000 and 2099 (UTC)",
    ),  # was 3
    row(
        "lease", "acquire", "{agent}", "--slot", "0001-01-01T00:00:00+01:00", code=1, says="is not between the years"
    ),  # was 3
    row(
        "lease", "acquire", "{agent}", "--slot", "9999-12-31T23:00:00-05:00", code=1, says="is not between the years"
    ),  # was 3
    row(
        "lease",
        "acquire",
        "{agent}",
        "--slot",
        "2026-12-07T08:00:00Z",
        "--ttl",
        "99999999999999999999",
        code=2,
        says="'--ttl': 99999999999999999999 is more than 86400 seconds",
    ),  # was 3
    row("lease", "acquire", "{agent}", "--slot", "2026-12-07T08:00:00Z", "--ttl", "0", code=2, says="x>=1"),
    # heinzel: files named with --from
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "/dev/zero",
        code=1,
        says="/dev/zero: is a character device, not a regular file",
    ),  # hung
    row(
        "heinzel",
        "amend",
        "weekly-note",
        "--from",
        "{run}/fifo",
        plant={"fifo": Fifo()},
        code=1,
        says="fifo: is a FIFO, not a regular file",
    ),  # hung
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/big.md",
        plant={"big.md": b"---\n" + b"a" * (2 << 20)},
        code=1,
        says="big.md: is larger than 1024 KiB",
    ),
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/loop.md",
        plant={"loop.md": Link("loop.md")},
        code=1,
        says="cannot be read (Too many levels of symbolic links)",
    ),
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/bad.md",
        plant={"bad.md": NOT_UTF8},
        code=1,
        says="bad.md: not UTF-8 text (byte 12 is 0xff)\n  hint: pass a UTF-8 .prose.md file",
    ),
    row("heinzel", "new", "x", "--from", "{run}", code=2, says="is a directory"),
    row("heinzel", "new", "x", code=2, says="give exactly one of --from PATH or --say SENTENCE"),
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/c.md",
        plant={"c.md": costly("cost:\n    max_tokens: " + "9" * 20)},
        code=1,
        says=f"c.md:13:17  HZC002  hz.cost.max_tokens\n  must be at most 100000000, not {'9' * 20} (int)",
    ),  # was 3
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/c.md",
        plant={"c.md": costly("concurrency:\n    limit: " + "9" * 20)},
        code=1,
        says="HZC002  hz.concurrency.limit\n  must be at most 1000",
    ),  # was 3
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/c.md",
        plant={"c.md": costly("cost:\n    max_tokens: " + "9" * 5000)},
        code=1,
        says="c.md:13:17  HZC001  frontmatter\n  the frontmatter holds a number of more than 4,300 digits",
    ),  # was 3
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/c.md",
        plant={"c.md": costly("cost:\n    max_usd_per_day: .nan")},
        code=1,
        says="HZC002  hz.cost.max_usd_per_day\n  must be a finite number, not nan (float)",
    ),
    # heinzel: sentences kept on the spine
    row(
        "heinzel",
        "amend",
        "weekly-note",
        "--from",
        "{run}/new.md",
        "--why",
        LONG,
        plant={"new.md": "x"},
        code=2,
        says=TEXT_TOO_LONG,
    ),  # hung
    row(
        "heinzel",
        "amend",
        "weekly-note",
        "--from",
        "{run}/new.md",
        "--why",
        "a\nb",
        plant={"new.md": "x"},
        code=2,
        says="holds the control character '\\n'; write one plain line",
    ),
    row(
        "heinzel",
        "amend",
        "weekly-note",
        "--from",
        "{run}/new.md",
        "--why",
        " ",
        plant={"new.md": "x"},
        code=2,
        says="is empty",
    ),
    row("heinzel", "retry", "weekly-note", LONG, code=2, says=TEXT_TOO_LONG),  # hung
    row("heinzel", "retry", "weekly-note", "\x1b[2J", code=2, says="holds the control character '\\x1b'"),
    # heinzel: a damaged copy of a contract version in hz's home
    row(
        "heinzel", "wake", "weekly-note", plant={V1: Fifo()}, code=1, says="weekly-note has no readable contract v1: "
    ),  # hung
    row(
        "heinzel",
        "wake",
        "weekly-note",
        plant={V1: Link("/dev/zero")},
        code=1,
        says="v1.prose.md: is a character device, not a regular file",
    ),  # hung
    row(
        "heinzel",
        "amend",
        "weekly-note",
        "--from",
        "{run}/weekly-note.prose.md",
        plant={V1: NOT_UTF8},
        code=1,
        says="v1.prose.md: not UTF-8 text (byte 12 is 0xff)\n  hint: the copy in hz's home is damaged",
    ),  # was 3
    # heinzel: names and ids
    row("heinzel", "pause", "--", "nope", code=1, says=NO_SUCH_AGENT),
    row("heinzel", "wake", "--", "hz-garbage", code=1, says="hint: hz heinzel list shows them all"),
    row("heinzel", "lessons", "--", LONG, code=1, says="hint: hz heinzel list shows them all"),
    row("heinzel", "show", "", code=1, says="hint: hz heinzel list shows them all"),
    row("heinzel", "rename", "weekly-note", "--", "../x", code=1, says="'../x' is not a valid name"),
    row("heinzel", "dismiss", "weekly-note", "--", "999999999999999999999", code=1, says="has no lesson"),
    row("heinzel", "dismiss", "nope", "1", code=1, says=NO_SUCH_AGENT),
    row("heinzel", "list", "--state", "bogus", code=2, says="Invalid value for '--state'"),
    row(
        "heinzel", "list", "--contract", "x@99999999999999999999", code=1, says=f"--contract 'x@{'9' * 20}': {VERSION}"
    ),  # was 3
    row(
        "heinzel", "list", "--contract", "x@" + "9" * 5000, code=1, says=f"--contract 'x@{'9' * 58}'…: {VERSION}"
    ),  # was 3
    row("heinzel", "list", "--contract", "x@\u00b2", code=1, says=f"--contract 'x@²': {VERSION}"),  # was 3
    row("heinzel", "list", "--contract", "x@", code=1, says=f"--contract 'x@': {VERSION}\n  hint: write NAME or NAME@"),
    row("heinzel", "list", "--contract", "@", code=1, says="--contract '@': names no contract"),
    row("heinzel", "list", "--contract", "@3", code=1, says="--contract '@3': names no contract"),
    # sources
    row("source", "fetch", "--", "file:/dev/zero", code=1, says="error:"),
    row("source", "fetch", "--", "file:fifo", plant={"repo/fifo": Fifo()}, code=1, says="error:"),
    row("source", "fetch", "--", "file:.git/config", code=1, says="error:"),
    row("source", "fetch", "--", "bogus:x", code=1, says="error:"),
    row("source", "fetch", "git:.", "--window", "1x", code=1, says="hint: write a number and a unit"),
    row(
        "source",
        "fetch",
        "git:.",
        "--window",
        "99999999999w",
        code=1,
        says="--window '99999999999w' is longer than 3650d",
    ),  # was 3
    row(
        "source",
        "fetch",
        "git:.",
        "--window",
        "9999999d",
        code=1,
        says="hint: write a number and a unit, at most 3650d",
    ),  # was 3
    row(
        "source", "fetch", "git:.", "--window", "9" * 5000 + "s", code=1, says=f"--window '{'9' * 40}…' is longer"
    ),  # was 3
    row("source", "fetch", "git:.", "--query", "--upload-pack=x", code=1, says="error:"),
    row("source", "diff", "nope", code=1, says="error:"),
    # drafts
    row("approve", "--", "a\nb", code=1, says="nothing to approve under 'a\\nb'"),
    row("reject", "--", "garbage", code=1, says="'garbage' is not a draft key"),  # asked before the team remote
    row("reject", "--", "hz-nope@v1@x", code=1, says="no draft waits under hz-nope@v1@x, here or on the team's remote"),
    # a damaged configuration or environment
    row("heinzel", "prune", plant={CONFIG: "[heinzel\n"}, code=1, says="hint: fix the TOML syntax"),
    row(
        "tick",
        plant={CONFIG: '[heinzel]\nmax_usd = "lots"\n'},
        code=1,
        says="heinzel.max_usd must be a number, got 'lots'",
    ),
    row(
        "workflow", "new", "hh", env={"HZ_HANDLE": "@a b"}, code=1, says="error: not a handle: '@a b' (from HZ_HANDLE)"
    ),
    row(
        "heinzel",
        "new",
        "x",
        "--from",
        "{run}/weekly-note.prose.md",
        env={"HZ_HANDLE": "@a b"},
        code=1,
        says="error: not a handle: '@a b' (from HZ_HANDLE)\n  hint: a handle looks like @priya",
    ),
    row(
        "heinzel",
        "prune",
        plant={CONFIG: "heinzel = 5\n"},
        code=1,
        says="config.toml: heinzel must be a table, got 5\n  hint: write it as [heinzel]",
    ),  # was 3
    row(
        "heinzel",
        "prune",
        plant={CONFIG: 'user = "x"\n'},
        env={"HZ_HANDLE": None},
        code=1,
        says="config.toml: user must be a table, got 'x'",
    ),  # was 3
    row(
        "workflow",
        "new",
        "hh",
        plant={CONFIG: "[user]\nhandle = 5\n"},
        env={"HZ_HANDLE": None},
        code=1,
        says='config.toml: user.handle must be text in quotes, got 5\n  hint: write it as handle = "@you" under [user]',
    ),  # was 3
    row(
        "heinzel",
        "prune",
        plant={CONFIG: "[heinzel]\nretention_days = 99999999999999999999\n"},
        code=1,
        says="heinzel.retention_days must be between 0 and 36500, got 99999999999999999999\n"
        "  hint: leave it out for the default, 90",
    ),  # was 3
    row(
        "tick",
        plant={CONFIG: "[heinzel]\nmax_usd = nan\n"},
        code=1,
        says="heinzel.max_usd must be between 0 and 1000000, got nan",
    ),
    row(
        "heinzel",
        "prune",
        plant={CONFIG: f"[heinzel]\nretention_days = {'9' * 5000}\n"},
        code=1,
        says="config.toml: a number has more than 4,300 digits\n  hint: fix the TOML syntax",
    ),  # was 3
    row(
        "heinzel",
        "prune",
        plant={CONFIG: f"a = {'[' * 5000}{']' * 5000}\n"},
        code=1,
        says="config.toml: arrays or tables nest too deeply to read",
    ),  # was 3
    row(
        "lease",
        "list",
        plant={"repo/hz.toml": f"[state]\nx = {'9' * 5000}\n"},
        code=1,
        says="hz.toml: not valid TOML: a number has more than 4,300 digits",
    ),  # was 3
    row("heinzel", "prune", plant={CONFIG: Fifo()}, code=1, says="config.toml: is a FIFO, not a regular file"),  # hung
    row(
        "heinzel", "prune", plant={CONFIG: b"\xff"}, code=1, says="config.toml: not UTF-8 text (byte 0 is 0xff)"
    ),  # was 3
    row("workflow", "list", cwd=".", code=1, says="hint: run hz from inside a team repository"),
    # a home hz cannot make or follow
    row(
        "heinzel", "list", env={"HZ_HOME": "/proc/nope"}, code=1, says=f"{NO_HOME} /proc/nope: /proc/nope: No such"
    ),  # was 3
    row("tick", env={"HZ_HOME": "/proc/nope"}, code=1, says="hint: point HZ_HOME at a folder you can write"),  # was 3
    row(
        "tick", env={"HZ_HOME": "{run}/user/.gitconfig/home"}, code=1, says=".gitconfig/home: Not a directory"
    ),  # was 3
    row(
        "heinzel",
        "list",
        env={"HZ_HOME": "{run}/loop"},
        plant={"loop": Link("loop")},
        code=1,
        says="loop is a link hz cannot follow (Too many levels of symbolic links)",
    ),  # was 3
]


def _ids(rows: list[Row]) -> list[str]:
    return [f"{n}-{' '.join(r.argv)[:40]}" for n, r in enumerate(rows)]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The repository every row starts from, built once; and the personal agent's id."""
    base = tmp_path_factory.mktemp("corpus")
    environ = _environ(base, {})
    repo = base / "repo"
    repo.mkdir()
    (base / "user").mkdir()
    (base / "user" / ".gitconfig").write_text('[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n')
    _git(["init", "-q"], repo, environ)
    _git(["commit", "-q", "--allow-empty", "-m", "start"], repo, environ)
    assert _hz(["init", "--owner", "@tester"], repo, environ).returncode == 0
    _git(["add", "-A"], repo, environ)
    _git(["commit", "-q", "-m", "hz init"], repo, environ)
    assert _hz(["workflow", "migrate"], repo, environ).returncode == 0
    (base / "weekly-note.prose.md").write_text(contract_text())
    created = _hz(["heinzel", "new", "weekly-note", "--from", str(base / "weekly-note.prose.md")], repo, environ)
    agent = re.search(r"\((hz-[0-9A-Z]{26})\)", created.stdout)
    assert agent is not None, created
    assert _hz(["approve", "weekly-note"], repo, environ).returncode == 0
    _git(["init", "-q", "--bare", str(base / "remote.git")], base, environ)
    assert _hz(["state", "install-hook", str(base / "remote.git")], repo, environ).returncode == 0
    _git(["remote", "add", "origin", "../remote.git"], repo, environ)
    _git(["push", "-q", "origin", "main"], repo, environ)
    return base, agent.group(1)


@pytest.mark.parametrize("case", ROWS, ids=_ids(ROWS))
def test_bad_input_exits_1_or_2_with_a_message(case: Row, template: tuple[Path, str], tmp_path: Path) -> None:
    base, agent = template
    run = tmp_path / "run"
    shutil.copytree(base, run, symlinks=True)
    _plant(run, {path.replace("{agent}", agent): what for path, what in case.plant.items()})
    environ = _environ(run, {k: v if v is None else v.replace("{run}", str(run)) for k, v in case.env.items()})
    argv = [a.replace("{run}", str(run)).replace("{agent}", agent) for a in case.argv]
    done = _hz(argv, run / case.cwd, environ)
    printed = done.stderr or done.stdout
    assert "Traceback" not in done.stderr and "hz hit a bug" not in done.stderr, done.stderr
    assert not (run / "hz-home" / "logs").exists()
    assert (done.returncode, case.says in printed) == (case.code, True), printed
    assert not (run / "pwned").exists() and not (run / "victim").exists()


def test_codeowners_write_never_writes_through_a_planted_temporary_name(
    template: tuple[Path, str], tmp_path: Path
) -> None:
    base, _ = template
    run = tmp_path / "run"
    shutil.copytree(base, run, symlinks=True)
    (run / "victim").write_text("keep me\n")
    for name in (".CODEOWNERS.hz-tmp", ".CODEOWNERS.tmp"):
        (run / "repo" / name).symlink_to(run / "victim")
    (run / "repo" / "CODEOWNERS").write_text("stale\n")
    done = _hz(["codeowners", "--write"], run / "repo", _environ(run, {}))
    assert (done.returncode, done.stdout) == (0, "wrote CODEOWNERS (1 contract)\n"), done.stderr
    assert (run / "victim").read_text() == "keep me\n"
    assert "@tester" in (run / "repo" / "CODEOWNERS").read_text()


def test_closed_stdout_still_does_the_work(template: tuple[Path, str], tmp_path: Path) -> None:
    base, _ = template
    run = tmp_path / "run"
    shutil.copytree(base, run, symlinks=True)
    closed = ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "hz", "heinzel", "pause", "weekly-note"]
    done = subprocess.run(closed, cwd=run / "repo", env=_environ(run, {}), capture_output=True, text=True, timeout=20)
    assert (done.returncode, done.stderr) == (0, "")  # was 3
    listed = _hz(["heinzel", "list"], run / "repo", _environ(run, {}))
    assert re.search(r"^me:weekly-note +paused ", listed.stdout, re.MULTILINE)


def test_a_full_disk_is_an_error_not_a_bug(template: tuple[Path, str], tmp_path: Path) -> None:
    base, _ = template
    run = tmp_path / "run"
    shutil.copytree(base, run, symlinks=True)
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "hz", "workflow", "show", "repo-digest", "--json"],
                              cwd=run / "repo", env=_environ(run, {}), stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=20, check=False)  # fmt: skip
    said = "error: hz could not write: No space left on device\n  hint: free some space, then run it again\n"
    assert (done.returncode, done.stderr) == (1, said)  # was 3


def test_a_reader_that_leaves_stops_the_output_quietly() -> None:
    """`hz … | head -1`: the rest of a long output is dropped with exit 1, no traceback, no crash log."""
    talk = (
        "import sys, click\nfrom hz.cli import guarded\n"
        "sys.exit(guarded(lambda: [click.echo('x' * 999) for _ in range(999)] and 0))"
    )
    reader, writer = os.pipe()
    with subprocess.Popen([sys.executable, "-c", talk], stdout=writer, stderr=subprocess.PIPE) as process:
        os.close(writer)
        os.read(reader, 10)
        os.close(reader)
        assert process.stderr is not None
        assert (process.wait(timeout=20), process.stderr.read()) == (1, b"")


# --- open-ended input: any text in these places exits 0, 1 or 2, never 3 ---

TEMPLATES = [
    ("workflow", "show", "--", "{}"),
    ("workflow", "new", "--", "{}"),
    ("workflow", "new", "fine", "--owner", "{}"),
    ("heinzel", "show", "--", "{}"),
    ("heinzel", "pause", "--", "{}"),
    ("heinzel", "rename", "nope", "--", "{}"),
    ("heinzel", "dismiss", "nope", "--", "{}"),
    ("heinzel", "amend", "nope", "--from", "/dev/null", "--why", "{}"),
    ("state", "log", "--no-fetch", "--id", "{}"),
    ("approve", "--", "{}"),
    ("reject", "--", "{}"),
    ("tick", "--now", "{}"),
    ("daemon", "run", "--ticks", "1", "--interval", "{}"),
]
EDGES = ["", " ", "-", "--", "nan", "inf", "-inf", "1e309", "-1", "0", "99999999999999999999", "\n", "x" * 5000,
         "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "hz-" + "Z" * 26, "../../etc/passwd", "/dev/zero"]  # fmt: skip
ARGUMENT = st.one_of(
    st.sampled_from(EDGES),
    st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30),  # argv holds no NUL
)


@pytest.mark.parametrize("template", TEMPLATES, ids=[" ".join(t) for t in TEMPLATES])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=ARGUMENT)
def test_any_argument_exits_0_1_or_2(hz: object, repo: Path, template: tuple[str, ...], value: str) -> None:
    argv = [value if part == "{}" else part for part in template]
    result = hz(*argv)  # type: ignore[operator]
    assert result.exit_code in (0, 1, 2), (argv, result.err)
    assert "Traceback" not in result.err


# --- the checks behind the rows, over open-ended input ---


@given(st.text(max_size=40))
def test_any_now_is_a_time_in_range_or_an_error(value: str) -> None:
    try:
        moment = parse_now(value)
    except HzError as exc:
        assert exc.message.startswith(f"--now {value!r} ")
    else:
        assert moment.tzinfo is not None and EARLIEST_NOW <= moment < LATEST_NOW


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)))
def test_a_now_in_range_is_taken_as_given(moment: datetime) -> None:
    text = moment.isoformat()
    if EARLIEST_NOW <= moment < LATEST_NOW:
        assert parse_now(text) == moment
    else:
        with pytest.raises(HzError, match="is not between the years 1970 and 8999"):
            parse_now(text)


@given(st.text(max_size=1100))
def test_a_sentence_is_one_short_plain_line_or_a_usage_error(value: str) -> None:
    command = click.Command("x", params=[click.Option(["--why"])])
    ctx = click.Context(command)
    try:
        kept = params.sentence(ctx, command.params[0], value)
    except click.BadParameter:
        return
    assert kept == value and value.strip() and len(value) <= params.SENTENCE_MAX
    assert all(ord(c) >= 0x20 and not 0x7F <= ord(c) < 0xA0 for c in value)


def test_the_sentence_bound_is_the_spines() -> None:
    from pydantic import TypeAdapter, ValidationError

    from hz.session.payload_types import Sentence

    spine = TypeAdapter(Sentence)
    assert spine.validate_python("x" * params.SENTENCE_MAX)
    with pytest.raises(ValidationError):
        spine.validate_python("x" * (params.SENTENCE_MAX + 1))


@given(st.binary(max_size=64))
def test_any_file_reads_as_its_text_or_an_unreadable_file(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("bytes") / "f.md"
    path.write_bytes(data)
    try:
        assert read_text_file(path, hint="h").encode("utf-8") == data
    except UnreadableFile as exc:
        assert exc.message.startswith(f"{path}: not UTF-8 text (byte ") and exc.hint == "h"


# --- helpers ---


def _environ(run: Path, extra: Mapping[str, str | None]) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("HZ_", "GITHUB_", "GIT_")) and k != "JIRA_TOKEN"}
    keep.update(
        HOME=str(run / "user"), HZ_HOME=str(run / "hz-home"), HZ_CONFIG_HOME=str(run / "hz-config"),
        XDG_CONFIG_HOME=str(run / "user" / ".config"), XDG_DATA_HOME=str(run / "user" / ".local" / "share"),
        GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=str(run / "user" / ".gitconfig"), HZ_HANDLE="@tester",
        GIT_AUTHOR_NAME="hz test", GIT_AUTHOR_EMAIL="hz-test@example.invalid",
        GIT_COMMITTER_NAME="hz test", GIT_COMMITTER_EMAIL="hz-test@example.invalid",
    )  # fmt: skip
    for key, value in extra.items():
        if value is None:
            keep.pop(key, None)
        else:
            keep[key] = value
    return keep


def _plant(run: Path, plant: Mapping[str, Plant]) -> None:
    for relative, what in plant.items():
        path = run / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        if isinstance(what, bytes):
            path.write_bytes(what)
        elif isinstance(what, str):
            path.write_text(what)
        elif isinstance(what, Link):
            path.symlink_to(what.target.replace("{run}", str(run)))
        elif isinstance(what, Fifo):
            os.mkfifo(path)
        else:
            path.mkdir()


def _hz(argv: list[str], cwd: Path, environ: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hz", *argv], cwd=cwd, env=dict(environ), capture_output=True,
                          text=True, errors="replace", timeout=TIMEOUT_S, check=False)  # fmt: skip


def _git(argv: list[str], cwd: Path, environ: Mapping[str, str]) -> None:
    subprocess.run(["git", *argv], cwd=cwd, env=dict(environ), check=True, capture_output=True)
