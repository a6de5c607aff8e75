"""A repository's worth of contracts with some broken ones, and a body of many sections.

1. Validate a repository of 1,000 contracts where 10 are broken (an absurd window, a duplicate key, a
   cp1252 file, UTF-16, nesting, a 5,000-digit number, a tab, an unknown kind, no frontmatter, an alias
   bomb) against the same 1,000 all valid. Goal: within 10% (a broken file costs no more than a good one,
   and never the others).
2. Parse a body of 20,000 `###` sections. Goal: under 1 s (it was quadratic: 2,000 took 4.2 s).
Figures only; nothing fails on time.  Run: .venv/bin/python bench/validate_repo.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate import generate  # the contract template of bench/validate.py

COUNT = 1000
WINDOW = 'source: "git:."\n      window: 7d'

# Ten ways to break a contract, each applied to one file (by index).
BREAKS: list[Callable[[str], bytes]] = [
    lambda t: t.replace("window: 7d", "window: 99999999999w").encode(),
    lambda t: t.replace("  scope: team\n", "  scope: team\n  scope: team\n").encode(),
    lambda t: t.replace("Keeps", "Kéeps").encode("cp1252"),
    lambda t: t.encode("utf-16"),
    lambda t: t.replace("window: 7d", "window: " + "[" * 200 + "]" * 200).encode(),
    lambda t: t.replace("window: 7d", "window: " + "9" * 5000).encode(),
    lambda t: t.replace("  scope: team\n", "\tscope: team\n").encode(),
    lambda t: t.replace("kind: responsibility", "kind: gateway").encode(),
    lambda t: t.split("\n---\n", 1)[1].encode(),
    lambda t: t.replace("name:", "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
                        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\nname:").encode(),
]  # fmt: skip


def write_repository(root: Path, broken: bool, chained: bool = True) -> None:
    """1,000 contracts, each reading the one before (`contract:`), or none (`chained=False`)."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    folder = root / "workflows"
    folder.mkdir()
    texts = generate(COUNT)
    for index in range(COUNT if not chained else 1):  # the first reads no contract
        texts[index] = texts[index].replace(f"contract:team/report-{max(index - 1, 0)}#summary", "git:.")
    spread = COUNT // len(BREAKS)
    for index, text in enumerate(texts):
        path = folder / f"report-{index}.prose.md"
        number, rest = divmod(index, spread)
        if broken and rest == spread // 2 and number < len(BREAKS):
            path.write_bytes(BREAKS[number](text))
        else:
            path.write_text(text)


def compile_seconds(valid: Path, broken: Path, rounds: int = 5) -> tuple[float, float, str, str]:
    """Median wall seconds of compiling each repository as `hz workflow validate` does, the two measured
    in turns so a busy machine disturbs both alike; and what each compile found."""
    from hz.contract.project import compile_repository

    environ = {"HZ_CONFIG_HOME": str(valid.parent / "no-config")}
    compile_repository(valid, environ)  # warm the imports and the models once
    times: dict[Path, list[float]] = {valid: [], broken: []}
    found: dict[Path, str] = {}
    for _ in range(rounds):
        for root in (valid, broken):
            start = time.perf_counter()
            compiled = compile_repository(root, environ)
            times[root].append(time.perf_counter() - start)
            errors = len({d.path for d in compiled.diagnostics if d.is_error})
            ok = sum(1 for c in compiled.contracts if c.contract is not None)
            found[root] = f"{ok} compiled, {errors} files with errors"
    return statistics.median(times[valid]), statistics.median(times[broken]), found[valid], found[broken]


def cli_seconds(root: Path) -> tuple[float, int]:
    environ = {**os.environ, "HZ_CONFIG_HOME": str(root / "no-config"), "HZ_HOME": str(root / "home")}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hz", "workflow", "validate"], cwd=root, capture_output=True, env=environ, check=False
    )
    return time.perf_counter() - start, done.returncode


def sections_seconds(count: int, rounds: int = 3) -> tuple[float, float]:
    """Median seconds to parse a body of `count` sections, and to load a whole contract holding them."""
    from hz.contract.load import load_text
    from hz.contract.sections import parse_body

    body = "".join(f"### Part {n}\n\nText {n}.\n\n" for n in range(count))
    parse, load = [], []
    contract = generate(1)[0].replace("### Done when", body + "### Done when")
    for _ in range(rounds):
        start = time.perf_counter()
        parse_body(body)
        parse.append(time.perf_counter() - start)
        start = time.perf_counter()
        load_text(contract)
        load.append(time.perf_counter() - start)
    return statistics.median(parse), statistics.median(load)


def main() -> None:
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        for chained in (False, True):
            how = "each reading the one before" if chained else "independent"
            valid, broken = Path(folder) / f"valid-{chained}", Path(folder) / f"broken-{chained}"
            write_repository(valid, broken=False, chained=chained)
            write_repository(broken, broken=True, chained=chained)
            good_s, bad_s, good_found, bad_found = compile_seconds(valid, broken)
            print(f"{COUNT:,} contracts, {how}:")
            print(f"  compile all valid:      median {good_s:.3f} s ({good_found})")
            print(f"  compile with 10 broken: median {bad_s:.3f} s ({bad_found})")
            print(f"  ratio broken/valid: {bad_s / good_s:.3f} (goal <= 1.10)")
        runs = [(cli_seconds(valid), cli_seconds(broken)) for _ in range(3)]  # in turns, as above
        good_cli, good_code = statistics.median(r[0][0] for r in runs), runs[0][0][1]
        bad_cli, bad_code = statistics.median(r[1][0] for r in runs), runs[0][1][1]
        print(f"hz workflow validate (chained), valid:    median {good_cli:.2f} s, exit {good_code}")
        ratio = bad_cli / good_cli
        print(f"hz workflow validate (chained), 10 broken: median {bad_cli:.2f} s, exit {bad_code} (ratio {ratio:.3f})")
    for count in (2000, 20000):
        parse_s, load_s = sections_seconds(count)
        print(
            f"{count:,} ### sections: parse {parse_s:.3f} s, whole contract {load_s:.3f} s (goal: 20,000 parse < 1 s)"
        )


if __name__ == "__main__":
    main()
