"""Rewrite the test modules' asserts once, in the xdist controller, before the workers start.

pytest rewrites the `assert`s of every test module and conftest it imports, and caches the result in
`__pycache__` unless bytecode writing is off (PYTHONDONTWRITEBYTECODE, as CI and the developers' machines
have it). Then each of the workers rewrote all ~300 modules again at every run: about 11 s of CPU per
worker, some 45 s of the suite's CPU with four workers. Even with writing on, a fresh checkout has no
cache and the workers collect the same modules in the same order at the same moment, so each rewrites
them all anyway. Done here first, once, the workers find a valid cached module and only load it.

The cache is pytest's own, keyed by the source's hash (a stale entry is never used), and this goes through
pytest's private rewriting functions: if a pytest release renames them, nothing is written ahead and the
workers rewrite as before; the tests themselves never depend on it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from pathlib import Path

import pytest


def skip(folders: tuple[str, ...], patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(folder, pattern) for folder in folders for pattern in patterns)


def modules(config: pytest.Config) -> Iterator[Path]:
    """The files the workers will rewrite: the test modules under the run's arguments and the conftests
    on the way to them."""
    patterns = [str(p) for p in config.getini("python_files")]
    root = config.rootpath
    seen: set[Path] = set()
    for arg in config.args or [str(root)]:
        path = Path(arg.split("::", 1)[0])
        path = (path if path.is_absolute() else config.invocation_params.dir / path).resolve()
        skipped = [str(p) for p in config.getini("norecursedirs")]  # .venv and the like, as pytest skips them
        found = [path]
        if path.is_dir():
            found = [f for f in sorted(path.rglob("*.py")) if not skip(f.relative_to(path).parts[:-1], skipped)]
        for parent in [p for p in path.parents if p == root or root in p.parents]:
            found.append(parent / "conftest.py")
        for file in found:
            wanted = file.name == "conftest.py" or any(fnmatch.fnmatch(file.name, p) for p in patterns)
            if wanted and file.is_file() and file not in seen:
                seen.add(file)
                yield file


def rewrite_ahead(config: pytest.Config) -> int:
    """Write pytest's rewritten-module cache for `modules(config)` where it is missing or stale; how many
    were written (0 also when pytest's rewriting is off or its functions are not where they were)."""
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        tail, get_cache_dir = rewrite.PYC_TAIL, rewrite.get_cache_dir
        read_pyc, rewrite_test, write_pyc = rewrite._read_pyc, rewrite._rewrite_test, rewrite._write_pyc
    except (ImportError, AttributeError, KeyError):
        return 0
    if getattr(state, "mode", "rewrite") != "rewrite":
        return 0
    written = 0
    for file in modules(config):
        cache = get_cache_dir(file)
        pyc = cache / (file.name[:-3] + tail)
        try:
            if read_pyc(file, pyc, state.trace) is not None:
                continue
            cache.mkdir(exist_ok=True)
            source_hash, code = rewrite_test(file, config)
        except (OSError, SyntaxError):  # the worker will say so when it imports the module
            continue
        written += bool(write_pyc(state, code, source_hash, pyc))
    return written
