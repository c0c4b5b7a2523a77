"""The Validate catch rate: how many seeded bugs the student's own Validate button catches.

nbgrader's Validate runs the *release* notebook, whose hidden tests are gone. For each
mutant of an assignment this module fills the release's answer cells with the mutated
solution, runs ``nbgrader validate`` on it exactly as a student's copy would (with the
student copy's ``nbgrader_config.py``), and counts the mutants Validate fails. The
solution must pass Validate, and print no warning on the way.

Two engines give the same answer. ``nbgrader`` runs the real command once per notebook.
``quick`` (the default) runs the same notebooks in forked children of a warm interpreter
(:mod:`course.grading.execution.quickrun`), scoring cells by nbgrader's rule; it is several times
faster, and ``tests/test_validate.py`` checks the two agree on every mutant of a notebook.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import nbformat

from ..authoring.export import STUDENT_CONFIG
from ..execution.quickrun import CellRun, run_many
from ..runner import DEFAULT_JOBS, NBGRADER_MAIN, nbgrader_env, parallel, read_notebook, select
from .mutation import Mutant, load_mutants, submission

Engine = Literal["quick", "nbgrader"]

TARGET = 0.8  # the least share of mutants Validate must catch in every notebook
SUCCESS = "Success! Your notebook passes all the tests."
# Log lines Validate prints that a student would read as something being wrong.
_NOISE = ("WARNING", "Kernel is running over TCP")
_ERROR_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception|Miss|Exit|Interrupt)\b:?")


@dataclass(frozen=True)
class Outcome:
    """What Validate said about one submission."""

    passed: bool
    warnings: tuple[str, ...]
    first_failure: str  # the first line of the first failing cell's error ("" if passed)


@dataclass
class CatchRate:
    """Validate on the solution and on every mutant of one assignment."""

    assignment: str
    solution: Outcome
    mutants: dict[str, Outcome] = field(default_factory=dict)

    @property
    def caught(self) -> list[str]:
        return [name for name, o in self.mutants.items() if not o.passed]

    @property
    def missed(self) -> list[str]:
        return [name for name, o in self.mutants.items() if o.passed]

    @property
    def rate(self) -> float:
        return len(self.caught) / len(self.mutants) if self.mutants else 1.0

    def problems(self, target: float = TARGET) -> list[str]:
        """Why this assignment fails the Validate standard (empty when it meets it)."""
        out = []
        if not self.solution.passed:
            out.append(f"the solution fails Validate: {self.solution.first_failure}")
        out += [f"Validate warns on the solution: {w}" for w in self.solution.warnings]
        if self.rate < target:
            out.append(f"Validate catches {self.rate:.0%} of mutants, below {target:.0%}; "
                       f"missed: {', '.join(self.missed)}")
        return out

    def line(self) -> str:
        return (f"Validate catch rate: {len(self.caught)}/{len(self.mutants)} "
                f"({self.rate:.0%}) {self.assignment}")


def parse(stdout: str, stderr: str) -> Outcome:
    """Read ``nbgrader validate``'s output: pass or fail, warnings, the first error line."""
    passed = SUCCESS in stdout
    warnings = tuple(ln.strip() for ln in stderr.splitlines()
                     if any(n in ln for n in _NOISE))
    first = ""
    if not passed:
        lines = [ln.strip() for ln in stdout.splitlines() if ln.strip()]
        errors = [ln for ln in lines if _ERROR_LINE.match(ln)]
        first = (errors or lines[-1:] or ["Validate printed nothing"])[0]
    return Outcome(passed, warnings, first)


def run_validate(nb: nbformat.NotebookNode, root: Path, name: str = "submission.ipynb",
                 timeout: float = 300) -> Outcome:
    """Run ``nbgrader validate`` on ``nb`` in a fresh folder set up like a student copy:
    the student ``nbgrader_config.py`` beside it, the support package importable."""
    folder = Path(tempfile.mkdtemp(prefix="validate-"))
    try:
        (folder / "nbgrader_config.py").write_text(STUDENT_CONFIG, encoding="utf-8")
        path = folder / name
        nbformat.write(nb, path)
        env = nbgrader_env()
        env["PYTHONPATH"] = str(root)
        try:
            proc = subprocess.run([sys.executable, "-c", NBGRADER_MAIN, "validate", name],
                                  cwd=folder, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return Outcome(False, (), f"Validate ran past {timeout:.0f}s")
        return parse(proc.stdout, proc.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def from_cells(runs: Sequence[CellRun]) -> Outcome:
    """What Validate would say, from how each graded cell of a quick run came out."""
    runs = [r for r in runs if r.grade_id]
    failed = [r for r in runs if not r.passed]
    return Outcome(not failed, tuple(r.warning for r in runs if r.warning),
                   failed[0].error if failed else "")


def quick_validate(notebooks: Sequence[nbformat.NotebookNode], root: Path,
                   jobs: int = DEFAULT_JOBS) -> list[Outcome]:
    """Validate's verdict on each notebook, from quick runs split across ``jobs`` workers."""
    return [from_cells(cells) for cells in run_many(notebooks, root, jobs)]


#: One Validate run to make: (mutant name or "solution", release notebook, the mutant).
_Run = tuple[str, Path, Mutant | None]


def _plan(root: Path, assignment: str, mutants: Sequence[Mutant] | None,
          release_dir: Path | None) -> tuple[list[_Run], list[nbformat.NotebookNode]]:
    """The runs a catch rate needs, and the notebook each one validates."""
    rel = release_dir or root / "release" / assignment
    chosen = list(mutants) if mutants is not None else load_mutants(
        root / "tests" / "mutants" / f"{assignment}.py")
    runs: list[_Run] = []
    notebooks = []
    for rel_nb in sorted(rel.glob("*.ipynb")):
        src = read_notebook(root / "source" / assignment / rel_nb.name)
        released = read_notebook(rel_nb)
        for name, mutant in [("solution", None), *((m.name, m) for m in chosen)]:
            runs.append((name, rel_nb, mutant))
            notebooks.append(submission(released, src, mutant))
    return runs, notebooks


def _collect(assignment: str, runs: Sequence[_Run], outcomes: Sequence[Outcome]
             ) -> CatchRate:
    result = CatchRate(assignment, Outcome(True, (), ""))
    for (name, _, mutant), outcome in zip(runs, outcomes, strict=True):
        if mutant is None:
            result.solution = outcome
        else:
            result.mutants[name] = outcome
    return result


def _validate_all(root: Path, runs: Sequence[_Run], notebooks: Sequence[nbformat.NotebookNode],
                  jobs: int, engine: Engine) -> list[Outcome]:
    if engine == "quick":
        return quick_validate(notebooks, root, jobs)
    pairs = list(zip(runs, notebooks, strict=True))
    return parallel(lambda p: run_validate(p[1], root, p[0][1].name), pairs, jobs)


def catch_rate(root: Path, assignment: str, jobs: int = DEFAULT_JOBS,
               mutants: Sequence[Mutant] | None = None,
               release_dir: Path | None = None, engine: Engine = "quick") -> CatchRate:
    """Validate the solution and every mutant of ``assignment`` built from its release.

    ``release_dir`` (default ``root/release/<assignment>``) lets a test point the
    measurement at a damaged copy of the release; ``engine`` picks how Validate is run.
    """
    runs, notebooks = _plan(root, assignment, mutants, release_dir)
    return _collect(assignment, runs, _validate_all(root, runs, notebooks, jobs, engine))


def catch_rates(root: Path, which: Sequence[str] | None = None,
                jobs: int = DEFAULT_JOBS, engine: Engine = "quick") -> list[CatchRate]:
    """The catch rate of each chosen assignment (all by default). Every notebook of every
    assignment goes into one batch, so the quick engine's warm workers start only once."""
    names = select(root, which)
    plans = [_plan(root, a, None, None) for a in names]
    runs = [r for p in plans for r in p[0]]
    outcomes = _validate_all(root, runs, [nb for p in plans for nb in p[1]], jobs, engine)
    rates, at = [], 0
    for a, (mine, _) in zip(names, plans, strict=True):
        rates.append(_collect(a, mine, outcomes[at:at + len(mine)]))
        at += len(mine)
    return rates
