"""What a benchmark prints about the machine it ran on: this machine's speed moves by the day and the hour, so
figures of different runs compare only through a reference measured in the same run."""

from __future__ import annotations

import os
import time


def cpu_reference() -> float:
    """Seconds a pure-Python loop of 10 million additions takes here, best of 3 (lower is faster)."""
    best = float("inf")
    for _ in range(3):
        started, total = time.perf_counter(), 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - started)
    return best


def machine_line(reference: float | None = None) -> str:
    """``machine: N cores, load L, CPU reference R s (10M additions in Python, best of 3)``."""
    reference = cpu_reference() if reference is None else reference
    return (f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}, CPU reference {reference:.2f} s "
            f"(10M additions in Python, best of 3)")
