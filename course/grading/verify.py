"""Grade the sample submissions of assignments and check each scored what it must.

The solution must get every autograded point, the untouched stub none, and each
mutant must lose exactly the cells it names and keep every other point. This is the
course's proof that its hidden tests are honest, run through real nbgrader.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .build import generate_all
from .grade import GradeRun, NotebookScore, autograde, scores, write_feedback
from .mutation import Sample, samples, write_samples
from .runner import DEFAULT_JOBS, scratch_course, select


@dataclass
class Verdict:
    """How one sample scored against what it must score."""

    sample: Sample
    scores: list[NotebookScore]
    run: GradeRun
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def judge(sample: Sample, rows: list[NotebookScore], run: GradeRun) -> list[str]:
    """What is wrong with this sample's grades (empty when it scored as it must)."""
    if not run.ok:
        return [f"autograde failed: {run.error}"]
    if not rows:
        return ["no grades were recorded"]
    auto = {c.grade_id: c for r in rows for c in r.cells if c.auto}
    must_lose = sample.expected_losses(auto)
    problems = []
    unknown = must_lose - set(auto)
    if unknown:
        problems.append(f"names cells that do not exist: {sorted(unknown)}")
    for gid, cell in auto.items():
        got = cell.score or 0
        if gid in must_lose and got > 0:
            problems.append(f"{gid}: scored {got:g}/{cell.max_score:g}, must score 0")
        if gid not in must_lose and got < cell.max_score:
            problems.append(f"{gid}: scored {got:g}/{cell.max_score:g}, must keep full points")
    return problems


def grade_samples(
    root: Path,
    which: Sequence[str] | None = None,
    mutants: str = "all",
    jobs: int = DEFAULT_JOBS,
    keep: Path | None = None,
    feedback: bool = False,
) -> tuple[list[Verdict], Path | None]:
    """Release into a scratch course, write the samples, autograde them, judge each.

    With ``keep`` the scratch course is created inside that folder and left there
    (the demo shows it); otherwise it is removed.
    """
    names = select(root, which)
    course = scratch_course(root, names, base=keep)
    try:
        generate_all(course, names, jobs)
        chosen = [s for a in names for s in samples(root, a, mutants)]
        write_samples(course, chosen)
        runs = autograde(course, [(s.student, s.assignment) for s in chosen], jobs=jobs)
        if feedback:
            errors = write_feedback(course, names)
            if errors:
                raise RuntimeError("; ".join(errors))
        table = scores(course)
        verdicts = []
        for s, run in zip(chosen, runs, strict=True):
            rows = [r for r in table if r.student == s.student and r.assignment == s.assignment]
            verdicts.append(Verdict(s, rows, run, judge(s, rows, run)))
        return verdicts, (course if keep else None)
    finally:
        if keep is None:
            shutil.rmtree(course, ignore_errors=True)
