"""Benchmark: seconds to autograde one Lab 1 submission, beside the floor of an empty notebook.

Both are graded the same way (`nbgrader autograde` in its own process, as
`python -m course grade` does), alternating, N times each, in one run so the ratio
is measured side by side on the same machine state. Prints medians and the ratio.

    python bench/autograde_lab01.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

import nbformat

from course.grading import runner
from course.grading.authoring import build
from course.grading.execution import grade
from course.grading.proofs import mutation

ROOT = Path(__file__).resolve().parents[1]
LAB = "lab01_tool_loop"
EMPTY = "bench_empty"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    course = runner.scratch_course(ROOT, [LAB])
    try:
        empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("", id="empty")])
        empty.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                         "language": "python"}}
        (course / "source" / EMPTY).mkdir(parents=True)
        nbformat.write(empty, course / "source" / EMPTY / f"{EMPTY}.ipynb")
        for a in (LAB, EMPTY):
            build.generate(course, a)
        mutation.write_samples(course, [mutation.Sample("solution", LAB, "solution")])
        target = course / "submitted" / "solution" / EMPTY / f"{EMPTY}.ipynb"
        target.parent.mkdir(parents=True)
        shutil.copy2(course / "release" / EMPTY / f"{EMPTY}.ipynb", target)

        times: dict[str, list[float]] = {LAB: [], EMPTY: []}
        for _ in range(args.repeat):
            for a in (EMPTY, LAB):
                start = time.monotonic()
                [run] = grade.autograde(course, [("solution", a)], jobs=1)
                times[a].append(time.monotonic() - start)
                assert run.ok, run.error
        lab, floor = statistics.median(times[LAB]), statistics.median(times[EMPTY])
        print(f"runs: {args.repeat} each, alternating")
        for label, name, median in (("empty notebook (floor)", EMPTY, floor),
                                     ("Lab 1 solution", LAB, lab)):
            runs = [round(t, 2) for t in times[name]]
            print(f"{label:<23} median {median:.2f}s  all {runs}")
        print(f"Lab 1 costs {lab - floor:.2f}s above the floor ({lab / floor:.2f}x the floor)")
    finally:
        shutil.rmtree(course, ignore_errors=True)


if __name__ == "__main__":
    main()
