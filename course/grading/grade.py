"""Autograde submissions and read the grades back from the gradebook.

Autograding runs one nbgrader process per (student, assignment), several at once: a
kernel that dies, a notebook that hangs or a malformed file then costs that one
submission only, and grades already written to the gradebook stay written.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .build import refresh_gradebook
from .runner import (
    DEFAULT_JOBS,
    PipelineError,
    assignments,
    last_error,
    nbgrader,
    parallel,
    read_notebook,
    select,
)


@dataclass
class GradeRun:
    """The outcome of autograding one (student, assignment) pair."""

    student: str
    assignment: str
    ok: bool
    error: str = ""
    seconds: float = 0.0


def submissions(course_dir: Path) -> list[tuple[str, str]]:
    """(student, assignment) pairs present under ``submitted/``."""
    sub = course_dir / "submitted"
    if not sub.is_dir():
        return []
    return sorted((s.name, a.name) for s in sub.iterdir() if s.is_dir()
                  for a in s.iterdir() if a.is_dir())


def autograde(course_dir: Path, pairs: Sequence[tuple[str, str]] | None = None,
              jobs: int = DEFAULT_JOBS, timeout: float = 600) -> list[GradeRun]:
    """Autograde submissions in parallel, one nbgrader process per (student, assignment)."""
    todo = list(pairs) if pairs is not None else submissions(course_dir)
    if not todo:
        raise PipelineError(f"no submissions under {course_dir / 'submitted'}; expected "
                            "submitted/<student>/<assignment>/<notebook>.ipynb")

    _register_students(course_dir, sorted({s for s, _ in todo}))

    def run(pair: tuple[str, str]) -> GradeRun:
        student, assignment = pair
        start = time.monotonic()
        try:
            proc = nbgrader(course_dir, "autograde", assignment, "--student", student, "--force",
                            timeout=timeout)
        except subprocess.TimeoutExpired:
            return GradeRun(student, assignment, False,
                            f"autograde exceeded {timeout:.0f}s and was stopped",
                            time.monotonic() - start)
        ok = proc.returncode == 0 and "[ERROR]" not in proc.stderr
        return GradeRun(student, assignment, ok, "" if ok else last_error(proc),
                        time.monotonic() - start)

    return parallel(run, todo, jobs)


def _register_students(course_dir: Path, students: Sequence[str]) -> None:
    """Create every student in the gradebook up front: parallel autograde processes that
    each create the same student would race on the unique key."""
    from nbgrader.api import Gradebook

    db = course_dir / "gradebook.db"
    if not db.exists():
        return  # autograde will report the missing assignment itself
    with Gradebook(f"sqlite:///{db}") as gb:
        for student in students:
            gb.update_or_create_student(student)


def write_feedback(course_dir: Path, which: Iterable[str]) -> list[str]:
    """``nbgrader generate_feedback`` for each assignment; returns one-line errors, if any."""
    errors = []
    for a in which:
        proc = nbgrader(course_dir, "generate_feedback", a, "--force")
        if proc.returncode != 0:
            errors.append(f"feedback for {a}: {last_error(proc)}")
    return errors


@dataclass
class CellScore:
    grade_id: str
    score: float | None
    max_score: float
    auto: bool


@dataclass
class NotebookScore:
    student: str
    assignment: str
    notebook: str
    cells: list[CellScore] = field(default_factory=list)

    @property
    def auto_score(self) -> float:
        return sum(c.score or 0 for c in self.cells if c.auto)

    @property
    def auto_max(self) -> float:
        return sum(c.max_score for c in self.cells if c.auto)


def scores(course_dir: Path) -> list[NotebookScore]:
    """Every graded cell of every autograded notebook, read from the gradebook,
    in the order the cells appear in the source notebook."""
    from nbgrader.api import Gradebook, MissingEntry

    db = course_dir / "gradebook.db"
    if not db.exists():
        return []
    out = []
    with Gradebook(f"sqlite:///{db}") as gb:
        for assignment in gb.assignments:
            for nb in assignment.notebooks:
                order = _cell_order(course_dir / "source" / assignment.name / f"{nb.name}.ipynb")
                for student in gb.students:
                    try:
                        sub = gb.find_submission_notebook(nb.name, assignment.name, student.id)
                    except MissingEntry:
                        continue
                    row = NotebookScore(student.id, assignment.name, nb.name)
                    for g in sorted(sub.grades, key=lambda g: order.get(g.name, len(order))):
                        row.cells.append(CellScore(g.name, g.score, g.max_score,
                                                   g.cell.cell_type == "code"))
                    out.append(row)
    return out


def _cell_order(path: Path) -> dict[str, int]:
    try:
        cells = read_notebook(path).cells
    except PipelineError:
        return {}
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in cells]
    return {gid: i for i, gid in enumerate(ids) if gid}


@dataclass
class ClassResult:
    """What grading a class produced: one run per submission and the grades read back."""

    runs: list[GradeRun]
    rows: list[NotebookScore]
    seconds: float

    @property
    def graded(self) -> int:
        return sum(r.ok for r in self.runs)

    @property
    def ok(self) -> bool:
        return self.graded == len(self.runs)


def grade_class(course_dir: Path, which: Sequence[str] | None = None, *,
                jobs: int = DEFAULT_JOBS, timeout: float = 600) -> ClassResult:
    """Autograde every submission under ``submitted/`` (of ``which`` assignments, or all),
    after recording the current source notebooks in the gradebook."""
    pairs = submissions(course_dir)
    if which:
        select(course_dir, which)
        pairs = [p for p in pairs if p[1] in which]
    if not pairs:
        raise PipelineError(f"no submissions under {course_dir / 'submitted'}; expected "
                            "submitted/<student>/<assignment>/<notebook>.ipynb")
    unknown = sorted({a for _, a in pairs} - set(assignments(course_dir)))
    if unknown:
        raise PipelineError(f"submissions for unknown assignment(s): {', '.join(unknown)}")
    refresh_gradebook(course_dir, sorted({a for _, a in pairs}))
    start = time.monotonic()
    runs = autograde(course_dir, pairs, jobs=jobs, timeout=timeout)
    took = time.monotonic() - start
    wanted = set(pairs)
    rows = [r for r in scores(course_dir) if (r.student, r.assignment) in wanted]
    return ClassResult(runs, rows, took)
