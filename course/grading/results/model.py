"""What grading a class produced, as one model: the gradebook's scores, how each autograde
went, the review flags and the seeded bugs, with every view a report needs computed here
once. The plain-text reports (:mod:`.report`) and the HTML page (:mod:`.html_report`)
render a :class:`ClassResults` and compute nothing of their own.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path

from ..proofs.mutation import Mutant
from ..runner import PipelineError, read_notebook
from .diagnose import Diagnosis, diagnose, mutants_of

#: Review flags of tampered submissions, kept beside the gradebook (instructor side).
REVIEWS_FILE = "reviews.json"
#: How the last autograde of each submission went (the HTML class report reads it).
RUNS_FILE = "grade_runs.json"
#: Where ``nbgrader generate_feedback`` writes, inside the course folder (nbgrader's default
#: ``CourseDirectory.feedback_directory`` and ``directory_structure``, which the course keeps):
#: ``feedback/<student>/<assignment>/<notebook>.html``.
FEEDBACK_DIR = "feedback"

Pair = tuple[str, str]  # (student, assignment)


@dataclass
class GradeRun:
    """The outcome of autograding one (student, assignment) pair."""

    student: str
    assignment: str
    ok: bool
    error: str = ""
    seconds: float = 0.0
    review: list[str] = field(default_factory=list)
    sandboxed: bool = True
    #: the peak resident memory of the grader's worker process that graded it, in MiB
    worker_peak_mib: float = 0.0
    #: the seed its hidden inputs were drawn from (:func:`course.observe.hidden_seed`)
    seed: int = 0


@dataclass
class CellScore:
    """One graded cell's score in one student's notebook (``score`` None: not scored)."""

    grade_id: str
    score: float | None
    max_score: float
    auto: bool


@dataclass
class NotebookScore:
    """One student's graded cells of one notebook, in the source notebook's order."""

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

    @property
    def lost(self) -> set[str]:
        """The autograded cells this notebook scored less than full points on."""
        return {c.grade_id for c in self.cells if c.auto and (c.score or 0) < c.max_score}


@dataclass(frozen=True)
class CellStat:
    """How the class did on one autograded cell of one notebook."""

    grade_id: str
    max_score: float
    passed: int
    graded: int

    @property
    def rate(self) -> float:
        return self.passed / self.graded if self.graded else 0.0


@dataclass(frozen=True)
class AssignmentSummary:
    """How the class did on one assignment: ``graded`` students (those awaiting review
    included, at the 0 their autograded cells carry until cleared), the mean and median of
    their autograded totals out of ``max_score`` (None when nobody graded), how many had
    full marks, and how many submissions failed to grade or await review."""

    assignment: str
    graded: int
    max_score: float
    mean: float | None
    median: float | None
    full_marks: int
    failed: int
    flagged: int


@dataclass(frozen=True)
class DiagnosisGroup:
    """The students of one assignment whose lost cells read as the same diagnosis
    (``diagnosis`` is the first student's; every one in the group has the same text)."""

    assignment: str
    diagnosis: Diagnosis
    students: tuple[str, ...]


@dataclass
class ClassResults:
    """What grading a class produced, and every view of it a report shows.

    ``rows`` are the gradebook's scores; ``runs`` the autograde outcomes (a failed run drops
    its submission's stale rows from every view and is listed with its error); ``reviews``
    maps ``"student/assignment"`` to what was tampered with (such a submission scores 0
    until cleared and is left out of the diagnosis); ``mutants`` maps an assignment to its
    seeded bugs. ``seconds`` and ``mismatches`` (gradebook against autograded notebook) are
    set when this came from grading just now.
    """

    rows: list[NotebookScore]
    runs: list[GradeRun] = field(default_factory=list)
    reviews: dict[str, list[str]] = field(default_factory=dict)
    mutants: dict[str, list[Mutant]] = field(default_factory=dict)
    seconds: float = 0.0
    mismatches: list[str] = field(default_factory=list)
    #: records beside the gradebook that could not be read, with their path and why
    unreadable: list[str] = field(default_factory=list)

    @classmethod
    def from_course(cls, course_dir: Path, which: Sequence[str] | None = None
                    ) -> ClassResults:
        """Everything recorded in ``course_dir`` (of ``which`` assignments, or all): the
        gradebook's scores, the last autograde of each submission, the review flags and
        the course's seeded bugs."""
        rows = [r for r in scores(course_dir) if not which or r.assignment in which]
        unreadable = []
        try:
            runs = [r for r in load_runs(course_dir) if not which or r.assignment in which]
        except PipelineError as exc:  # render what can be read, and say what could not
            runs, unreadable = [], [*unreadable, str(exc)]
        try:
            reviews = {k: v for k, v in needs_review(course_dir).items()
                       if not which or k.partition("/")[2] in which}
        except PipelineError as exc:
            reviews, unreadable = {}, [*unreadable, str(exc)]
        names = sorted({r.assignment for r in rows} | {r.assignment for r in runs})
        return cls(rows, runs, reviews, {a: mutants_of(course_dir, a) for a in names},
                   unreadable=unreadable)

    @classmethod
    def from_runs(cls, rows: list[NotebookScore], runs: list[GradeRun],
                  mutants: dict[str, list[Mutant]] | None = None) -> ClassResults:
        """Results of a grading that kept no review file (``course verify``, the demo):
        the review flags are the ones each run reported."""
        reviews = {f"{r.student}/{r.assignment}": r.review for r in runs if r.ok and r.review}
        return cls(rows, runs, reviews, dict(mutants or {}))

    # -- outcomes ------------------------------------------------------------------------------

    @property
    def n_graded(self) -> int:
        """How many runs graded their submission."""
        return sum(r.ok for r in self.runs)

    @property
    def ok(self) -> bool:
        """Every run graded and the gradebook agrees with every autograded notebook."""
        return self.n_graded == len(self.runs) and not self.mismatches

    @cached_property
    def failed(self) -> dict[Pair, str]:
        """``(student, assignment) -> error`` of every run that did not grade."""
        return {(r.student, r.assignment): r.error for r in self.runs if not r.ok}

    @cached_property
    def flagged(self) -> set[Pair]:
        """Every submission awaiting review for tampering."""
        return {(student, assignment) for student, sep, assignment in
                (k.partition("/") for k in self.reviews) if sep}

    @property
    def unsandboxed(self) -> bool:
        """Some run was graded without the sandbox (``--no-sandbox``)."""
        return any(not r.sandboxed for r in self.runs)

    @property
    def notes(self) -> list[GradeRun]:
        """Runs that graded but left a note (a link skipped, a file refused, ...)."""
        return [r for r in self.runs if r.ok and r.error]

    # -- scores --------------------------------------------------------------------------------

    @cached_property
    def graded(self) -> list[NotebookScore]:
        """The rows of every submission whose latest run did not fail."""
        return [r for r in self.rows if (r.student, r.assignment) not in self.failed]

    @cached_property
    def honest(self) -> list[NotebookScore]:
        """Graded rows not awaiting review: the ones whose lost cells say something."""
        return [r for r in self.graded if (r.student, r.assignment) not in self.flagged]

    @cached_property
    def by_notebook(self) -> dict[tuple[str, str], list[NotebookScore]]:
        """``(assignment, notebook) -> graded rows`` sorted by student, notebooks sorted."""
        out: dict[tuple[str, str], list[NotebookScore]] = defaultdict(list)
        for r in self.graded:
            out[(r.assignment, r.notebook)].append(r)
        return {k: sorted(v, key=lambda r: r.student) for k, v in sorted(out.items())}

    @property
    def students(self) -> set[str]:
        return {r.student for r in self.graded} | {r.student for r in self.runs}

    @property
    def submissions(self) -> set[Pair]:
        return {(r.student, r.assignment) for r in self.graded}

    def cell_stats(self, assignment: str, notebook: str) -> list[CellStat]:
        """Per autograded cell of one notebook, in notebook order: how many had full points."""
        return self._cell_stats.get((assignment, notebook), [])

    @cached_property
    def _cell_stats(self) -> dict[tuple[str, str], list[CellStat]]:
        out = {}
        for key, group in self.by_notebook.items():
            out[key] = [CellStat(c0.grade_id, c0.max_score,
                                 sum(1 for r in group for c in r.cells
                                     if c.grade_id == c0.grade_id
                                     and (c.score or 0) >= c0.max_score), len(group))
                        for c0 in group[0].cells if c0.auto]
        return out

    def totals(self) -> dict[str, tuple[list[float], float]]:
        """``assignment -> (each student's autograded total, the most points)``."""
        got: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        most: dict[str, dict[str, float]] = defaultdict(dict)
        for r in self.graded:
            got[r.assignment][r.student] += r.auto_score
            most[r.assignment][r.notebook] = r.auto_max
        return {a: (list(got[a].values()), sum(most[a].values())) for a in sorted(got)}

    @cached_property
    def summaries(self) -> list[AssignmentSummary]:
        """One :class:`AssignmentSummary` per assignment graded or failed, sorted by name."""
        totals = self.totals()
        out = []
        for a in sorted(set(totals) | {assignment for _, assignment in self.failed}):
            got, most = totals.get(a, ([], 0.0))
            out.append(AssignmentSummary(
                a, len(got), most, statistics.fmean(got) if got else None,
                statistics.median(got) if got else None, sum(t >= most for t in got),
                sum(1 for _, x in self.failed if x == a),
                sum(1 for _, x in self.flagged if x == a)))
        return out

    @cached_property
    def lost_cells(self) -> dict[tuple[str, str], list[str]]:
        """``(assignment, cell) -> students who lost it``, most lost first, students sorted."""
        lost: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in self.graded:
            for gid in r.lost:
                lost[(r.assignment, gid)].append(r.student)
        return {k: sorted(v) for k, v in sorted(lost.items(),
                                                key=lambda kv: (-len(kv[1]), kv[0]))}

    def graded_count(self, assignment: str) -> int:
        """How many students have a graded submission of ``assignment``."""
        return len({r.student for r in self.graded if r.assignment == assignment})

    # -- diagnosis -----------------------------------------------------------------------------

    def diagnosis_of(self, row: NotebookScore) -> Diagnosis:
        """What one notebook's lost cells look like (see :mod:`.diagnose`)."""
        auto = [c.grade_id for c in row.cells if c.auto]
        return diagnose(row.lost, self.mutants.get(row.assignment, []), all_cells=auto)

    @cached_property
    def diagnosis_groups(self) -> list[DiagnosisGroup]:
        """The honest rows that lost a cell, grouped by assignment and diagnosis: most
        common first, students sorted."""
        who: dict[tuple[str, str], list[str]] = defaultdict(list)
        first: dict[tuple[str, str], Diagnosis] = {}
        for r in self.honest:
            d = self.diagnosis_of(r)
            if d.lost:
                who[(r.assignment, d.text)].append(r.student)
                first.setdefault((r.assignment, d.text), d)
        return [DiagnosisGroup(key[0], first[key], tuple(sorted(names)))
                for key, names in sorted(who.items(), key=lambda kv: (-len(kv[1]), kv[0]))]

    @cached_property
    def diagnosed(self) -> dict[tuple[str, str], list[str]]:
        """``(assignment, diagnosis) -> students`` over the honest rows that lost a cell,
        most common first, students sorted."""
        return {(g.assignment, g.diagnosis.text): list(g.students)
                for g in self.diagnosis_groups}


# -- the records beside the gradebook ---------------------------------------------------------


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename,
    so a reader never sees half a file and a failed write leaves the old one whole. The
    text is encoded strictly (a lone surrogate here is a bug upstream: it raises before
    anything is replaced)."""
    import os
    import tempfile

    data = text.encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_runs(course_dir: Path, runs: Iterable[GradeRun]) -> None:
    """Record how each submission's latest autograde went, beside the gradebook; runs of
    other submissions recorded earlier are kept (a damaged record is replaced)."""
    path = course_dir / RUNS_FILE
    try:
        earlier = load_runs(course_dir)
    except PipelineError:
        earlier = []
    known = {(r.student, r.assignment): r for r in earlier}
    known.update({(r.student, r.assignment): r for r in runs})
    write_atomically(path, json.dumps([asdict(r) for _, r in sorted(known.items())],
                                      indent=1, ensure_ascii=True))


def _damaged(path: Path, what: str, why: str) -> PipelineError:
    return PipelineError(f"{path}: not {what} ({why}); delete it and grade again")


def load_runs(course_dir: Path) -> list[GradeRun]:
    """The runs :func:`save_runs` recorded (empty when the course was never graded).
    Raises :class:`PipelineError` naming the file and what is wrong with it."""
    path = course_dir / RUNS_FILE
    if not path.is_file():
        return []
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, list):
            raise TypeError("it is not a list")
        return [GradeRun(**r) for r in raw]
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise _damaged(path, "a record of grade runs",
                       str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
                       ) from None


def needs_review(course_dir: Path) -> dict[str, list[str]]:
    """``"student/assignment" -> what was changed`` for every submission awaiting review.
    Raises :class:`PipelineError` naming the file and what is wrong with it."""
    path = course_dir / REVIEWS_FILE
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise _damaged(path, "a record of review flags", str(exc)[:120]) from None
    if not isinstance(raw, dict) or not all(
            isinstance(k, str) and isinstance(v, list) for k, v in raw.items()):
        raise _damaged(path, "a record of review flags",
                       'expected {"student/assignment": [flag, ...]}')
    return {k: [str(x) for x in v] for k, v in raw.items()}


def save_reviews(course_dir: Path, reviews: dict[str, list[str]]) -> None:
    """Write the review flags atomically (the file goes when none is left). The flags came
    from a kernel: they pass :func:`.boundary.flags` once more on the way to the file."""
    from ..execution.boundary import flags, line

    path = course_dir / REVIEWS_FILE
    if reviews:
        clean = {line(k): flags(v) for k, v in reviews.items()}
        write_atomically(path, json.dumps(clean, indent=1, sort_keys=True,
                                          ensure_ascii=False))
    elif path.exists():
        path.unlink()


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
