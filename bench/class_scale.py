"""Benchmark: a whole term in one call. K submissions of every notebook (cycling through
its solution, its stub and its seeded bugs) graded by one ``course grade -j N``, warm
kernels against ``--cold-kernels``, alternated in one run; the projection for a term of
200 students x 14 notebooks is printed from each.

    python bench/class_scale.py [--per-notebook 10] [--jobs 2] [--rounds 1]

The call's fixed cost (start-up, pre-flight of every solution, the gradebook's refresh) is
part of the measure, as it is for an instructor; the projection scales the per-submission
time of the whole call.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from course.grading import runner
from course.grading.authoring import build
from course.grading.proofs import mutation

ROOT = Path(__file__).resolve().parents[1]
TERM = 200 * 14


def _class(course: Path, names: list[str], k: int) -> int:
    """``k`` submissions per notebook; how many were written."""
    n = 0
    for a in names:
        chosen = mutation.samples(ROOT, a, "all")
        release = runner.read_notebook(course / "release" / a / f"{a}.ipynb")
        source = runner.read_notebook(course / "source" / a / f"{a}.ipynb")
        for i in range(k):
            s = chosen[i % len(chosen)]
            nb = (mutation.submission(release, source, s.mutant) if s.kind != "stub"
                  else release)
            target = course / "submitted" / f"student{i:03d}" / a / f"{a}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
            n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-notebook", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    names = runner.assignments(ROOT)
    course = runner.scratch_course(ROOT, names)
    try:
        for a in names:
            build.generate(course, a)
        n = _class(course, names, args.per_notebook)
        took: dict[str, list[float]] = {"warm": [], "cold": []}
        lines: dict[str, str] = {}
        for _ in range(args.rounds):
            for kind, extra in (("warm", []), ("cold", ["--cold-kernels"])):
                start = time.monotonic()
                proc = subprocess.run([sys.executable, "-m", "course", "grade", "-j",
                                       str(args.jobs), *extra], cwd=course,
                                      capture_output=True, text=True)
                took[kind].append(time.monotonic() - start)
                lines[kind] = next((ln for ln in proc.stdout.splitlines()
                                    if ln.startswith("autograded ")),
                                   proc.stderr.strip()[-300:])
        print(f"{n} submissions: {args.per_notebook} of each of {len(names)} notebooks, "
              f"one `course grade -j {args.jobs}` call")
        for kind in ("warm", "cold"):
            wall = statistics.median(took[kind])
            per = wall / n
            print(f"  {kind}: {wall:6.1f} s ({per:.2f} s/submission) -> 200 x 14 = {TERM} "
                  f"submissions in {per * TERM / 60:.0f} min  [{lines[kind]}]")
        ratio = statistics.median(took["cold"]) / statistics.median(took["warm"])
        print(f"  cold/warm: {ratio:.2f}x (target: a term in 45 min or less)")
    finally:
        shutil.rmtree(course, ignore_errors=True)


if __name__ == "__main__":
    main()
