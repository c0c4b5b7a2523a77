"""Pre-flight: before a class is graded, grade each assignment's own solution the same way.

If the instructor's solution does not score full marks in this environment and sandbox
(a kernel that cannot import ``course``, a missing package, a sandbox that cannot start),
every student would score 0 for the same reason; so grading stops before the first student,
names that reason and writes nothing. The solution's run time also sets each submission's
wall-clock budget (:func:`budget`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..authoring.build import solution_notebook
from ..runner import PipelineError, cell_timeout
from . import pool
from .engine import Job, Outcome, expected_scores

#: The student id of a pre-flight job: not a safe id (:data:`.grade.SAFE_ID`), so no
#: student's submission can be taken for one.
PREFLIGHT = "(pre-flight)"
#: A submission may take this many times as long as the solution took here...
BUDGET_FACTOR = 3.0
#: ...but never less than this many seconds (kernel start and machine noise included).
BUDGET_FLOOR = 60.0


@dataclass(frozen=True)
class Preflight:
    """How long each assignment's solution took to grade here, in seconds."""

    seconds: dict[str, float]

    def budget(self, assignment: str, factor: float = BUDGET_FACTOR,
               ceiling: float = 600.0) -> float:
        """The wall-clock budget of one submission of ``assignment``."""
        took = self.seconds.get(assignment, ceiling)
        return min(ceiling, max(BUDGET_FLOOR, factor * took))


def _hint(message: str) -> str:
    # The kernel's words do not reach here (only grader-written ones): the class is enough.
    if "No module named 'course" in message or "raised ModuleNotFoundError" in message:
        return (" (the sandboxed kernel cannot import the support package: check that this "
                "environment's install of it points at this checkout, `pip install -e .`)")
    return ""


def solution_jobs(course_dir: Path, assignments: Sequence[str], *, sandboxed: bool,
                  warm: bool = True) -> list[Job]:
    """One job per source notebook, its submission the instructor's own solution (with the
    assignment's other files beside it, as a release has them), graded as a student's is."""
    from .sandbox import default_sandbox, trusted_roots

    sb = default_sandbox()
    out = []
    for a in assignments:
        folder = course_dir / "source" / a
        extra = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
                 if p.is_file() and not p.is_symlink() and p.suffix != ".ipynb"}
        for path in sorted(folder.glob("*.ipynb")):
            source = path.read_text(encoding="utf-8")
            sol = solution_notebook(nbformat.reads(source, as_version=4))
            files = {**extra, path.name: nbformat.writes(sol).encode()}
            out.append(Job(PREFLIGHT, a, path.stem, files, source,
                           cell_timeout=cell_timeout(course_dir), sandboxed=sandboxed,
                           readonly=sb.readonly, trusted=tuple(trusted_roots(sb)), warm=warm))
    from .warm import imports_of

    preload = imports_of(j.source for j in out)  # the same as the class's jobs name
    return [dataclasses.replace(j, preload=preload) for j in out]


class Flight:
    """The pre-flight's outcomes as they arrive, beside the class's own (see
    :func:`.grade.grade_class`): done when every solution is graded, failed with the first
    reason one of them did not score full marks."""

    def __init__(self, checks: Sequence[Job]) -> None:
        self.waiting = {(j.assignment, j.notebook) for j in checks}
        self.seconds: dict[str, float] = {}
        self.reason = ""

    @property
    def done(self) -> bool:
        return not self.waiting or bool(self.reason)

    def add(self, o: Outcome) -> None:
        """Take one solution's outcome."""
        self.waiting.discard((o.assignment, o.notebook))
        why = verdict(o)
        if why and not self.reason:
            self.reason = why
        self.seconds[o.assignment] = self.seconds.get(o.assignment, 0.0) + o.seconds

    def result(self) -> Preflight:
        """The budgets, or :class:`PipelineError` with the reason grading must stop."""
        if self.reason:
            raise PipelineError(self.reason)
        if self.waiting:
            raise PipelineError(f"pre-flight: no outcome for {sorted(self.waiting)}; nothing "
                                "was graded")
        return Preflight(dict(self.seconds))


def verdict(o: Outcome) -> str:
    """Why this graded solution means the class must not be graded here ("" if it may)."""

    where = f"pre-flight: the solution of {o.assignment}/{o.notebook}"
    if not o.ok:
        return f"{where} could not be graded here: {o.error}{_hint(o.error)}; nothing was graded"
    if o.review:
        return (f"{where} was flagged for review here ({o.review[0]}); the tamper probe "
                "misreads this environment; nothing was graded")
    nb = nbformat.reads(o.executed, as_version=4)
    lost = _lost(nb, expected_scores(nb, flagged=False))
    if lost:
        gid, why = lost[0]
        return (f"{where} loses {len(lost)} cell(s) here, first {gid}: {why}{_hint(why)}; "
                "nothing was graded")
    return ""


def preflight(course_dir: Path, assignments: Sequence[str], *, jobs: int, sandboxed: bool,
              scheduler: str | None = None, warm: bool = True) -> Preflight:
    """Grade each assignment's solution; raise :class:`PipelineError` with the first reason
    it does not score full marks, before anything is written."""
    work = solution_jobs(course_dir, assignments, sandboxed=sandboxed, warm=warm)
    flight = Flight(work)
    pool.run(work, jobs, scheduler=scheduler, progress=False, what="pre-flight",
             on_done=flight.add)
    return flight.result()


def _lost(nb: nbformat.NotebookNode, scores: dict[str, float | None]) -> list[tuple[str, str]]:
    out = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {}) or {}
        gid = meta.get("grade_id")
        if gid in scores and scores[gid] is not None and scores[gid] < meta.get("points", 0):
            errors = [f"{o.get('ename')}: {o.get('evalue')}" for o in cell.get("outputs", [])
                      if o.get("output_type") == "error"]
            out.append((gid, (errors or ["no error shown"])[0][:300]))
    return out
