"""Benchmark: a class of Lab 1 submissions graded by plain serial `nbgrader autograde` and by
`course grade -j N`, side by side in one run, beside the floor of one sandboxed kernel.

* serial nbgrader: one `nbgrader autograde lab01_tool_loop` over every student (its own
  serial loop, no sandbox);
* course grade: `python -m course grade -j N lab01_tool_loop` (worker pool, sandboxed,
  each kernel forked from a warm template), and the same with ``--cold-kernels``;
* floor: one sandboxed kernel started and one empty cell run, graded alone;
* own run time: the solution graded alone in the sandbox, minus the floor.

Prints both ratios: the speed-up over serial nbgrader (target >= 4 on 2 cores with
``-j 2``) and the pool's cost per submission (wall x N / submissions) over floor + own run
time.

    python bench/grade_throughput.py [--students 40] [--jobs 2] [--rounds 3]

Each round grades the class all three ways, one after the other; with several rounds the
median of the per-round ratios is quoted (these machines are noisy). Last, where the time
of one submission goes: the mean seconds of each grading phase (``engine.PHASES``) over the
class graded warm and cold, in this process; warm on a pool started as ``course grade``
starts it (:func:`pool.start`), so no worker's template start counts in a submission.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from course.grading import runner
from course.grading.authoring import build
from course.grading.execution import engine, grade, pool, sandbox
from course.grading.execution.refuse import ALLOW
from course.grading.proofs import mutation
from course.grading.results import model

ROOT = Path(__file__).resolve().parents[1]
LAB = "lab01_tool_loop"
NB = f"{LAB}.ipynb"


def _class(course: Path, n: int) -> None:
    """``n`` submissions cycling through the solution, the stub and every mutant."""
    chosen = mutation.samples(ROOT, LAB, "all")
    release = runner.read_notebook(course / "release" / LAB / NB)
    source = runner.read_notebook(course / "source" / LAB / NB)
    for i in range(n):
        s = chosen[i % len(chosen)]
        nb = mutation.submission(release, source, s.mutant) if s.kind != "stub" else release
        target = course / "submitted" / f"student{i:03d}" / LAB / NB
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)


def _single(course: Path, nb: nbformat.NotebookNode, source: str, repeat: int) -> float:
    sb = sandbox.default_sandbox()
    times = []
    for _ in range(repeat):
        job = engine.Job("bench", LAB, LAB, {NB: nbformat.writes(nb).encode()}, source,
                         readonly=sb.readonly, trusted=tuple(sandbox.trusted_roots(sb)))
        start = time.monotonic()
        out = engine.grade_job(job)
        times.append(time.monotonic() - start)
        if not out.ok:
            raise SystemExit(f"benchmark submission failed: {out.error}")
    return statistics.median(times)


def _phases(course: Path, jobs: int) -> None:
    """Mean seconds per grading phase over the class, warm and cold, side by side."""
    pairs = grade.submissions(course)
    means = {}
    for warm in (True, False):
        work = grade.jobs_for(course, pairs, warm=warm)
        template = (work[0].readonly, work[0].preload) if warm else None
        outs = pool.run_local(work, jobs, started=pool.start(jobs, template))
        means[warm] = {p: statistics.mean(o.phases.get(p, 0.0) for o in outs)
                       for p in engine.PHASES}
        means[warm]["total"] = statistics.mean(o.seconds for o in outs)
    print(f"where one submission's time goes, mean over {len(pairs)} (seconds, "
          f"{jobs} workers):")
    print(f"  {'phase':<8} {'warm':>6} {'cold':>6}  what")
    for p, what in [*engine.PHASES.items(), ("total", "the whole submission")]:
        print(f"  {p:<8} {means[True][p]:6.2f} {means[False][p]:6.2f}  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1,
                        help="serial and pooled runs, alternated; the median ratio is quoted")
    args = parser.parse_args()

    plain = runner.scratch_course(ROOT, [LAB])
    ours = runner.scratch_course(ROOT, [LAB])
    try:
        for c in (plain, ours):
            build.generate(c, LAB)
        _class(plain, args.students)
        shutil.copytree(plain / "submitted", ours / "submitted")

        release = runner.read_notebook(ours / "release" / LAB / NB)
        source_nb = runner.read_notebook(ours / "source" / LAB / NB)
        source = nbformat.writes(source_nb)
        empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
        empty.metadata = source_nb.metadata
        floor = _single(ours, empty, nbformat.writes(empty), args.repeat)
        solo = _single(ours, mutation.submission(release, source_nb), source, args.repeat)
        own = max(0.0, solo - floor)

        serials, pooleds, colds, summary = [], [], [], []
        for _ in range(args.rounds):  # alternated, so a noisy spell hits every side
            start = time.monotonic()
            os.environ[ALLOW] = "1"  # the course refuses plain autograde of submissions
            proc = runner.nbgrader(plain, "autograde", LAB, "--force")
            del os.environ[ALLOW]
            serials.append(time.monotonic() - start)
            if proc.returncode != 0:
                print(f"serial nbgrader: {runner.last_error(proc)}", file=sys.stderr)

            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "course", "grade", "-j",
                                   str(args.jobs), LAB], cwd=ours, capture_output=True,
                                  text=True)
            pooleds.append(time.monotonic() - start)
            summary = [ln for ln in proc.stdout.splitlines() if ln.startswith("autograded ")]

            start = time.monotonic()
            subprocess.run([sys.executable, "-m", "course", "grade", "-j", str(args.jobs),
                            "--cold-kernels", LAB], cwd=ours, capture_output=True, text=True)
            colds.append(time.monotonic() - start)
        ratios = sorted(a / b for a, b in zip(serials, pooleds, strict=True))
        cold_ratios = sorted(a / b for a, b in zip(serials, colds, strict=True))
        serial, pooled = statistics.median(serials), statistics.median(pooleds)

        n = args.students
        per_sub = pooled * args.jobs / n
        print(f"submissions: {n} Lab 1 notebooks; {args.jobs} worker(s)")
        print(f"serial nbgrader autograde: {serial:7.1f} s  ({serial / n:.2f} s/submission)")
        print(f"course grade -j {args.jobs}:        {pooled:7.1f} s  "
              f"({pooled / n:.2f} s/submission)"
              f"  [{summary[-1] if summary else proc.stderr.strip()[-200:]}]")
        print(f"floor (sandboxed kernel + one cell): {floor:.2f} s; notebook's own run time: "
              f"{own:.2f} s (solution alone in the sandbox: {solo:.2f} s)")
        print(f"speed-up over serial nbgrader: {statistics.median(ratios):.2f}x, the median "
              f"of {len(ratios)} round(s) (each: {', '.join(f'{r:.2f}' for r in ratios)}) "
              "(target >= 4x)")
        print(f"course grade -j {args.jobs} --cold-kernels: {statistics.median(colds):7.1f} s; "
              f"speed-up over serial nbgrader {statistics.median(cold_ratios):.2f}x "
              f"(each: {', '.join(f'{r:.2f}' for r in cold_ratios)})")
        print(f"pool cost per submission: {per_sub:.2f} s = {per_sub / (floor + own):.2f} x "
              "(floor + own run time)")
        rows = model.scores(ours)
        print(f"grades recorded by course grade: {len(rows)}")
        _phases(ours, args.jobs)
    finally:
        shutil.rmtree(plain, ignore_errors=True)
        shutil.rmtree(ours, ignore_errors=True)


if __name__ == "__main__":
    main()
