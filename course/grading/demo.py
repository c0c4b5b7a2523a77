"""The end-to-end instructor demo: a fresh course, released, graded and reported.

For every notebook it creates three sample submissions: the solution, the untouched
stub, and one seeded bug (the first mutant of the assignment). It autogrades them in
parallel, writes feedback HTML, prints the grade table and the class report, says
whether each submission scored what it must, and ends by writing the HTML class report.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .proofs.verify import grade_samples
from .results import html_report, report
from .results.diagnose import mutants_of
from .results.model import ClassResults
from .runner import DEFAULT_JOBS, select


def run_demo(root: Path, keep: Path | None = None, jobs: int = DEFAULT_JOBS,
             which: Sequence[str] | None = None) -> int:
    """Run the demo on the chosen assignments (all by default); 0 when every submission
    scored as it must."""
    names = select(root, which)
    print(f"Demo: {len(names)} assignment(s): {', '.join(names)}")
    print("Each gets three submissions: solution, stub (untouched release), one seeded bug.")
    start = time.monotonic()
    base = keep or Path(tempfile.mkdtemp(prefix="course-demo-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        verdicts, course = grade_samples(root, names, mutants="first", jobs=jobs, keep=base,
                                         feedback=True)
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)
    rows = [r for v in verdicts for r in v.scores]
    runs = [v.run for v in verdicts]
    seeded = {a: mutants_of(root, a) for a in names}
    print()
    results = ClassResults.from_runs(rows, runs, seeded)
    print(report.grade_table(results))
    print(report.class_report(results))
    for v in verdicts:
        mark = "ok  " if v.ok else "FAIL"
        what = f"{v.sample.mutant.name}: {v.sample.mutant.bug}" if v.sample.mutant \
            else v.sample.kind
        print(f"{mark} {v.sample.assignment:<28} {v.sample.student:<28} {what}")
        for p in v.problems:
            print(f"       - {p}")
    bad = sum(not v.ok for v in verdicts)
    took = time.monotonic() - start
    if keep is not None and course is not None:
        print(f"\nCourse kept at {course} (feedback HTML under {course / 'feedback'})")
    else:
        print("\nFeedback HTML was generated for every submission (use --keep DIR to keep it).")
    print(f"{len(verdicts) - bad}/{len(verdicts)} submissions scored as they must, "
          f"in {took:.1f}s with {jobs} parallel job(s)")
    target = (course if keep is not None and course is not None
              else Path(tempfile.mkdtemp(prefix="course-demo-report-"))) / html_report.REPORT_PATH
    page = html_report.render(results, title="Class report: demo",
                              links=html_report.Links(course, target) if course else None)
    print(f"class report: {html_report.write(page, target).as_uri()}")
    return 1 if bad else 0
