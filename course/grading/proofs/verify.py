"""Grade the sample submissions of assignments and check each scored what it must.

The solution must get every autograded point, the untouched stub none, and each
mutant must lose exactly the cells it names and keep every other point. This is the
course's proof that its hidden tests are honest, run through real nbgrader.
"""

from __future__ import annotations

import copy
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..authoring.build import generate_all
from ..execution.grade import autograde, write_feedback
from ..results.model import GradeRun, NotebookScore, scores
from ..runner import DEFAULT_JOBS, read_notebook, scratch_course, select
from .mutation import Sample, check_edits, samples, submission, write_samples


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
    return judge_cells(sample, {c.grade_id: (c.score or 0, c.max_score)
                                for r in rows for c in r.cells if c.auto})


def judge_cells(sample: Sample, auto: dict[str, tuple[float, float]]) -> list[str]:
    """What is wrong with these autograded cells' ``(score, max)`` for this sample."""
    must_lose = sample.expected_losses(auto)
    problems = []
    unknown = must_lose - set(auto)
    if unknown:
        problems.append(f"names cells that do not exist: {sorted(unknown)}")
    for gid, (got, most) in auto.items():
        if gid in must_lose and got > 0:
            problems.append(f"{gid}: scored {got:g}/{most:g}, must score 0")
        if gid not in must_lose and got < most:
            problems.append(f"{gid}: scored {got:g}/{most:g}, must keep full points")
    return problems


def quick_grades(root: Path, subs: Sequence[tuple[str, str, nbformat.NotebookNode]],
                 jobs: int = DEFAULT_JOBS, seeds: Sequence[int] | None = None
                 ) -> list[dict[str, tuple[float, float]]]:
    """Each ``(assignment, notebook file name, student notebook)``'s autograded cells as
    ``grade_id -> (score, max)``, from quick runs (:mod:`.quickrun`) of the notebook the
    grader would execute: the submission with its test cells restored from ``source/``,
    under its hidden seed from ``seeds`` (0 for all when None). Trusted notebooks only:
    nothing here is sandboxed."""
    from ..execution.engine import restore
    from ..execution.quickrun import run_many

    notebooks, points = [], []
    for assignment, name, sub in subs:
        src = read_notebook(root / "source" / assignment / name)
        notebooks.append(restore(copy.deepcopy(sub), src))
        points.append({c.metadata["nbgrader"]["grade_id"]:
                       float(c.metadata["nbgrader"].get("points", 0))
                       for c in src.cells if c.cell_type == "code"
                       and c.metadata.get("nbgrader", {}).get("grade")})
    out = []
    for runs, most in zip(run_many(notebooks, root, jobs, seeds), points, strict=True):
        out.append({r.grade_id: (most[r.grade_id] if r.passed else 0.0, most[r.grade_id])
                    for r in runs if r.grade_id in most})
    return out


def quick_cells(root: Path, chosen: Sequence[Sample], jobs: int = DEFAULT_JOBS,
                seeds: Sequence[int] | None = None) -> list[dict[str, tuple[float, float]]]:
    """Each sample's autograded cells as ``grade_id -> (score, max)``, from quick runs
    (:func:`quick_grades`). One entry per sample and notebook of its assignment. Sample
    ``i`` runs under hidden seed ``seeds[i]``, by default ``i + 1``: every sample of a
    notebook draws other hidden inputs, so no proof holds for one seed alone."""
    subs, each = [], []
    for i, s in enumerate(chosen):
        for rel_nb in sorted((root / "release" / s.assignment).glob("*.ipynb")):
            src = read_notebook(root / "source" / s.assignment / rel_nb.name)
            sub = submission(read_notebook(rel_nb), src, s.mutant, answer=s.kind != "stub")
            subs.append((s.assignment, rel_nb.name, sub))
            each.append(seeds[i] if seeds is not None else i + 1)
    return quick_grades(root, subs, jobs, each)


def quick_verify(root: Path, which: Sequence[str] | None = None, mutants: str = "all",
                 jobs: int = DEFAULT_JOBS) -> list[tuple[Sample, list[str]]]:
    """Every chosen sample judged from quick runs: ``(sample, problems)`` each. What
    :func:`grade_samples` proves through the real grader, in a fraction of the time."""
    chosen = [s for a in select(root, which) for s in samples(root, a, mutants)]
    return [(s, judge_cells(s, cells))
            for s, cells in zip(chosen, quick_cells(root, chosen, jobs), strict=True)]


def seed_sweep(root: Path, which: Sequence[str] | None = None, mutants: str = "all",
               count: int = 3, first: int = 1, jobs: int = DEFAULT_JOBS
               ) -> list[tuple[Sample, int, list[str]]]:
    """Every chosen sample run on the quick engine under ``count`` hidden seeds each
    (``first``, ``first + 1``, ...): ``(sample, seed, problems)`` for each run that did not
    score as it must. A proof that holds for one seed can fail for another when a hidden
    input's set holds a value where the solution fails or a mutant passes."""
    chosen = [s for a in select(root, which) for s in samples(root, a, mutants)]
    runs = [(s, first + k) for k in range(count) for s in chosen]
    cells = quick_cells(root, [s for s, _ in runs], jobs, [seed for _, seed in runs])
    return [(s, seed, found) for (s, seed), got in zip(runs, cells, strict=True)
            if (found := judge_cells(s, got))]


#: With every mutant, each solution is graded this many more times, as other students:
#: each draws its own hidden seed, and it must score full marks under all of them.
MORE_SOLUTIONS = 2


def more_solutions(names: Sequence[str]) -> list[Sample]:
    """The solution of each of ``names`` again, as ``solution-2``, ``solution-3``, ...."""
    return [Sample(f"solution-{k}", a, "solution")
            for a in names for k in range(2, 2 + MORE_SOLUTIONS)]


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
    chosen = [s for a in names for s in samples(root, a, mutants)]
    if mutants == "all":
        chosen += more_solutions(names)
    for a in names:  # a mutant that does not apply fails now, not after the scratch build
        check_edits(root, a, [s.mutant for s in chosen if s.assignment == a and s.mutant])
    course = scratch_course(root, names, base=keep)
    try:
        generate_all(course, names, jobs)
        write_samples(course, chosen)
        # fixed seeds, so a proof that fails can be run again as it was
        runs = autograde(course, [(s.student, s.assignment) for s in chosen], jobs=jobs,
                         salt=b"course verify")
        if feedback:
            errors = write_feedback(course, names, progress=sys.stderr)
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
