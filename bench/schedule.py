"""How long the tick's schedule questions take: due slots for many contracts, and catch-up after an absence.

Run: .venv/bin/python bench/schedule.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from hz.schedule import Cron, due_slots, latest_slot, next_slot

CRONS = ["0 9 * * MON", "*/15 * * * *", "30 2 * * *", "0 * * * *", "0 8 1 * *", "5 4 * * 1-5"]
ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Lord_Howe"]


def measure(label: str, work: Callable[[], object], rounds: int = 7) -> None:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"{label:<58} median {statistics.median(times) * 1000:8.2f} ms   p95 {p95 * 1000:8.2f} ms")


def main() -> None:
    contracts = [[Cron(CRONS[i % len(CRONS)], ZONES[i % len(ZONES)])] for i in range(1000)]
    now = datetime(2026, 11, 1, 6, 30, tzinfo=UTC)  # inside New York's repeated hour
    tick = now - timedelta(minutes=1)
    measure("due_slots over one tick minute, 1,000 contracts", lambda: [due_slots(c, tick, now) for c in contracts])
    measure("next_slot, 1,000 contracts", lambda: [next_slot(c, now) for c in contracts])
    away = now - timedelta(days=30)
    measure(
        "latest_slot after 30 days away, 1,000 contracts", lambda: [latest_slot(c, now, after=away) for c in contracts]
    )
    every5 = [Cron("*/5 * * * *", "Europe/Berlin")]
    measure("due_slots of a */5 cron over 30 days (8,640 slots)", lambda: due_slots(every5, away, now), rounds=3)


if __name__ == "__main__":
    main()
