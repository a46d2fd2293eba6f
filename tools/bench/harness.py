"""Timing helpers shared by the benchmarks: medians of repeated runs, printed as ratios."""

from __future__ import annotations

import statistics
import time
from typing import Callable, Optional


def median_seconds(fn: Callable[[], object], repeats: int, inner: int = 1, warmup: int = 3) -> float:
    """Median wall time of one call of `fn`, over `repeats` samples of `inner` calls each."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


def report(title: str, unit: str, scale: float, ours: float, others: dict[str, Optional[float]]) -> dict:
    """Prints one benchmark row: Tensorflux, each other framework, and other/ours ratios."""
    parts = [f"tensorflux {ours * scale:10.2f} {unit}"]
    ratios = {}
    for name, value in others.items():
        if value is None:
            parts.append(f"{name}: not measured (not installed, or did not run: see above)")
            continue
        ratios[name] = value / ours
        parts.append(f"{name} {value * scale:10.2f} {unit} ({ratios[name]:.1f}x slower than tensorflux)"
                     if ratios[name] >= 1 else
                     f"{name} {value * scale:10.2f} {unit} (tensorflux {1 / ratios[name]:.1f}x slower)")
    print(f"{title}\n    " + "\n    ".join(parts), flush=True)
    return {"benchmark": title, "tensorflux": ours, **{k: v for k, v in others.items()}, "ratios": ratios}
