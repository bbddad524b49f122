"""Wall-clock medians for the benchmark commands (never used by tests: speed is shown, not asserted)."""

from __future__ import annotations

import time
from collections.abc import Callable
from statistics import median


def median_seconds(fn: Callable[[], object], repeats: int, warmup: int = 0) -> float:
    """Median wall time of ``repeats`` calls after ``warmup`` untimed ones."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return median(times)
