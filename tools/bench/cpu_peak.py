"""The machine's measured clock and fp32 FMA throughput (tools/bench/cpu_peak.cc), for the "% of
peak" columns: the C++ program is compiled once per source version into the temporary folder with
the C++ compiler on PATH, and its "key value" lines are returned as a dict.

Usage: python tools/bench/cpu_peak.py
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile

SOURCE = pathlib.Path(__file__).with_name("cpu_peak.cc")


def measure() -> tuple[dict, str]:
    """({isa, clock_ghz, fma_gflops_T..., flops_per_cycle}, "") or ({}, why nothing was measured)."""
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        return {}, "no C++ compiler on PATH"
    tag = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    exe = pathlib.Path(tempfile.gettempdir()) / f"tx_cpu_peak_{tag}"
    if not exe.exists():
        built = subprocess.run([cxx, "-O2", "-std=c++17", "-pthread", str(SOURCE), "-o", str(exe)],
                               capture_output=True, text=True)
        if built.returncode != 0:
            return {}, "cpu_peak.cc did not compile: " + built.stderr.strip()[-300:]
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    if ran.returncode != 0:
        return {}, "cpu_peak failed: " + ran.stderr.strip()[-300:]
    out = {}
    for line in ran.stdout.splitlines():
        key, value = line.split()
        out[key] = value if key == "isa" else float(value)
    return out, ""


if __name__ == "__main__":
    values, why = measure()
    print(why or "\n".join(f"{k} {v}" for k, v in values.items()))
