"""Benchmark: the full test suite on different numbers of pytest-xdist workers, in one run.

Runs ``pytest -n N`` once for each N given (default 2, then 3), one after the other on the
same machine state, and prints each run's wall time, its pass/fail line and how busy the
machine's CPUs were meanwhile (from ``/proc/stat``: the share of CPU time not idle, every
process counted, sandboxed kernels included, which ``time``'s user figure misses). A suite
bound by CPU shows a share near 100% and gains nothing from another worker.

    python bench/suite_workers.py [-m "not slow"] [N ...]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies over all CPUs since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    total = sum(fields[:8])  # guest time is already inside user
    return total - idle, total


def run(workers: int, marker: str | None) -> tuple[float, float, str, int]:
    """One suite run: (wall seconds, busy share, pytest's summary line, exit code)."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", str(workers), "-p", "no:cacheprovider"]
    if marker:
        cmd += ["-m", marker]
    busy0, total0 = cpu_times()
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - start
    busy1, total1 = cpu_times()
    share = (busy1 - busy0) / max(1, total1 - total0)
    summary = next((ln.strip("= ") for ln in reversed(proc.stdout.splitlines())
                    if re.search(r"\d+ (passed|failed)", ln)), "no summary line")
    return wall, share, summary, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", dest="marker", default=None, help="pytest -m expression")
    parser.add_argument("workers", nargs="*", type=int, default=[2, 3])
    args = parser.parse_args()
    results = []
    for n in args.workers:
        wall, share, summary, code = run(n, args.marker)
        results.append((n, wall))
        print(f"-n {n}: {wall / 60:5.2f} min wall, CPUs {share:5.1%} busy, exit {code}: "
              f"{summary}", flush=True)
    if len(results) > 1:
        base_n, base = results[0]
        for n, wall in results[1:]:
            print(f"-n {n} / -n {base_n}: {wall / base:.2f}x the wall time")


if __name__ == "__main__":
    main()
