"""Benchmark: the Validate catch rate of notebooks with both engines, side by side.

``nbgrader`` runs the real ``nbgrader validate`` once per notebook (a process, an nbgrader
import and a kernel start each); ``quick`` runs the same notebooks in forked children of one
warm interpreter per worker. The two run alternately, N times each, in one run so the ratio
is measured on the same machine state. Prints each engine's median seconds, the ratio, and
whether both engines caught the same mutants every time.

    python bench/validate_engines.py [--repeat 2] [--jobs 2] [assignment ...]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from course.grading.proofs import validate

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("assignments", nargs="*", default=["lab01_tool_loop",
                                                            "lab04_loop_detector"])
    args = parser.parse_args()

    seconds: dict[str, list[float]] = {"nbgrader": [], "quick": []}
    caught: dict[str, set[tuple[str, ...]]] = {"nbgrader": set(), "quick": set()}
    runs = 0
    for _ in range(args.repeat):
        for engine in ("nbgrader", "quick"):
            start = time.monotonic()
            rates = validate.catch_rates(ROOT, args.assignments, args.jobs, engine=engine)
            seconds[engine].append(time.monotonic() - start)
            caught[engine].add(tuple(f"{r.assignment}:{m}" for r in rates for m in r.caught))
            runs = sum(len(r.mutants) + 1 for r in rates)
    real, quick = (statistics.median(seconds[e]) for e in ("nbgrader", "quick"))
    print(f"{runs} notebooks ({', '.join(args.assignments)}), {args.jobs} jobs, "
          f"{args.repeat} rounds")
    print(f"nbgrader validate: {real:6.1f} s median  {seconds['nbgrader']}")
    print(f"quick engine:      {quick:6.1f} s median  {seconds['quick']}")
    print(f"ratio: {real / quick:.2f}x")
    same = caught["nbgrader"] == caught["quick"] and len(caught["quick"]) == 1
    print(f"same mutants caught by both engines in every round: {same}")


if __name__ == "__main__":
    main()
