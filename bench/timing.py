"""Timing helpers the benchmarks share: run a function n times, and print medians and quantiles.

The scripts run as `python bench/<name>.py`, which puts this folder first on the import path.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def ms(seconds: float, digits: int = 3) -> str:
    return f"{seconds * 1000:.{digits}f} ms"


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def stats(runs: list[float], digits: int = 3) -> str:
    """`median …, p95 … (n runs)`."""
    median, p95 = statistics.median(runs), quantile(runs, 0.95)
    return f"median {ms(median, digits)}, p95 {ms(p95, digits)} ({len(runs)} runs)"


def repeat(fn: Callable[[], Any], times: int) -> list[float]:
    """The wall time of each of `times` calls, in seconds."""
    runs = []
    for _ in range(times):
        began = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - began)
    return runs
