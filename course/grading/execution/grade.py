"""Autograde submissions and write the gradebook from what their kernels produced.

Each submission is graded by :func:`.engine.grade_job` in a fresh sandboxed kernel, on a
pool of long-lived worker processes (or a Dask cluster). Only this parent process writes
the gradebook, after the kernel has exited, from the executed notebook alone: code in a
submission never holds the gradebook, and a kernel that dies, a notebook that hangs or a
malformed file costs that one submission only.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import io
import re
import secrets
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import nbformat

from ..authoring.build import refresh_gradebook
from ..results.diagnose import mutants_of
from ..results.model import (
    ClassResults,
    GradeRun,
    load_runs,
    needs_review,
    save_reviews,
    save_runs,
    scores,
)
from ..runner import (
    DEFAULT_JOBS,
    PipelineError,
    assignments,
    cell_timeout,
    last_error,
    nbgrader,
    read_notebook,
    select,
)
from . import boundary, pool
from .engine import Job, Outcome, expected_scores
from .files import copy_submission, read_submission, skipped_note

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

#: What a student id may look like: it names folders and gradebook rows, and nbgrader's
#: formgrader puts it into pages without escaping it.
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
#: The largest submission folder the grader copies into a kernel's scratch folder.
MAX_SUBMISSION_BYTES = 50 * 1024**2


def unsafe_id(student: str) -> str:
    """Why ``student`` cannot be graded as an id ("" when it can)."""
    if SAFE_ID.match(student):
        return ""
    return (f"student id {student!r} is not a safe id: it may hold letters, digits and "
            "'._@+-', start with a letter or digit, and have at most 64 characters; rename "
            "the folder under submitted/")


def submissions(course_dir: Path) -> list[tuple[str, str]]:
    """(student, assignment) pairs present under ``submitted/``."""
    sub = course_dir / "submitted"
    if not sub.is_dir():
        return []
    return sorted((s.name, a.name) for s in sub.iterdir() if s.is_dir()
                  for a in s.iterdir() if a.is_dir())


def _files(folder: Path) -> dict[str, bytes]:
    """The submission's regular files (never a link, pipe or device: :mod:`.files`); an
    oversized submission holds no files and says why (its ``problem``)."""
    return read_submission(folder, MAX_SUBMISSION_BYTES)


def hidden_seed(salt: bytes, student: str, assignment: str) -> int:
    """The seed of one submission's hidden inputs: drawn from ``salt`` (random per grading
    call unless given) and the pair, so every notebook of a submission shares it and no two
    submissions, nor two gradings of one, can be told apart in advance."""
    digest = hashlib.sha256(salt + f"\0{student}\0{assignment}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def jobs_for(course_dir: Path, pairs: Sequence[tuple[str, str]], *, sandboxed: bool = True,
             timeout: float = 600, warm: bool = True, salt: bytes | None = None) -> list[Job]:
    """One :class:`.engine.Job` per (student, assignment, notebook); ``warm`` kernels are
    forked from a template (:mod:`.warm`), else started cold. Each submission's hidden
    inputs are drawn from :func:`hidden_seed` of ``salt`` (random when None)."""
    salt = secrets.token_bytes(16) if salt is None else salt
    from .sandbox import default_sandbox, trusted_roots

    sb = default_sandbox()
    per_cell = cell_timeout(course_dir)
    sources: dict[str, list[tuple[str, str]]] = {}
    out = []
    for student, assignment in pairs:
        if assignment not in sources:
            sources[assignment] = [
                (p.stem, p.read_text(encoding="utf-8"))
                for p in sorted((course_dir / "source" / assignment).glob("*.ipynb"))]
        files = _files(course_dir / "submitted" / student / assignment)
        for name, source in sources[assignment]:
            out.append(Job(student, assignment, name, files, source, cell_timeout=per_cell,
                           total_timeout=timeout, sandboxed=sandboxed, readonly=sb.readonly,
                           trusted=tuple(trusted_roots(sb)), warm=warm,
                           seed=hidden_seed(salt, student, assignment)))
    from .warm import imports_of

    preload = imports_of(text for pairs_ in sources.values() for _, text in pairs_)
    return [dataclasses.replace(j, preload=preload) for j in out]


def heaviest_first(course_dir: Path, work: Sequence[Job]) -> list[Job]:
    """``work`` with the assignments that take longest first, so the pool does not end on
    one long notebook while the other workers sit idle. How long an assignment takes is the
    mean of its submissions' seconds in the last recorded runs (``grade_runs.json``) when
    every assignment has some, else the size of its source notebook; students keep their
    order within an assignment."""
    try:
        runs = load_runs(course_dir)
    except PipelineError:
        runs = []
    took: dict[str, list[float]] = {}
    for r in runs:
        if r.ok and r.seconds > 0:
            took.setdefault(r.assignment, []).append(r.seconds)
    names = {j.assignment for j in work}
    if names <= set(took):
        weight = {a: sum(took[a]) / len(took[a]) for a in names}
    else:
        weight = {a: float(len(next(j.source for j in work if j.assignment == a)))
                  for a in names}
    return sorted(work, key=lambda j: -weight[j.assignment])


class _Merger:
    """Writes each submission into the course as soon as all its notebooks are graded and
    writing is allowed (:meth:`allow`); until then outcomes wait here."""

    def __init__(self, course_dir: Path, todo: Sequence[tuple[str, str]], work: Sequence[Job],
                 sandbox: bool) -> None:
        self.course_dir, self.todo, self.sandbox = course_dir, list(todo), sandbox
        self.expected: dict[tuple[str, str], int] = {pair: 0 for pair in self.todo}
        self.seeds: dict[tuple[str, str], int] = {}
        for job in work:
            self.expected[(job.student, job.assignment)] += 1
            self.seeds[(job.student, job.assignment)] = job.seed
        self.outs: dict[tuple[str, str], list[Outcome]] = {pair: [] for pair in self.todo}
        self.waiting = set(self.todo)
        self.open = False
        #: submissions whose results could not be recorded, and why
        self.broken: dict[tuple[str, str], str] = {}

    def add(self, out: Outcome) -> None:
        pair = (out.student, out.assignment)
        self.outs[pair].append(out)
        if self.open and len(self.outs[pair]) == self.expected[pair]:
            self._write(pair)

    def allow(self) -> None:
        """From now on, write: the students are registered, then everything complete."""
        if self.open:
            return
        self.open = True
        _register_students(self.course_dir, sorted({s for s, _ in self.todo}))
        for pair in [p for p in self.todo if len(self.outs[p]) == self.expected[p]]:
            self._write(pair)

    def _write(self, pair: tuple[str, str]) -> None:
        if pair in self.waiting:
            self.waiting.discard(pair)
            try:
                merge(self.course_dir, *pair, self.outs[pair])
            except Exception as exc:  # noqa: BLE001 - one submission's bookkeeping only
                first = boundary.line((str(exc).splitlines() or [""])[0], 300)
                self.broken[pair] = (f"its results could not be recorded "
                                     f"({type(exc).__name__}: {first})")

    def runs(self) -> list[GradeRun]:
        """Write whatever is left (a submission with a missing outcome is not graded) and
        say how each submission went, in the order of ``todo``."""
        self.allow()
        for pair in list(self.waiting):
            self._write(pair)
        out = []
        for student, assignment in self.todo:
            outs = self.outs[(student, assignment)]
            failed = [o for o in outs if not o.ok]
            notes = [o.error for o in outs if o.error]
            if (student, assignment) in self.broken:
                failed, notes = [None], [*notes, self.broken[(student, assignment)]]
            out.append(GradeRun(student, assignment, ok=bool(outs) and not failed,
                                error="; ".join(notes) or ("" if outs else "no notebook"),
                                seconds=sum(o.seconds for o in outs),
                                review=[r for o in outs for r in o.review],
                                sandboxed=self.sandbox,
                                worker_peak_mib=max((o.worker_peak_mib for o in outs),
                                                    default=0.0),
                                seed=self.seeds.get((student, assignment), 0)))
        return out


def autograde(course_dir: Path, pairs: Sequence[tuple[str, str]] | None = None,
              jobs: int = DEFAULT_JOBS, timeout: float = 600, *, sandbox: bool = True,
              scheduler: str | None = None, progress: bool = True,
              budgets: dict[str, float] | None = None, warm: bool = True,
              salt: bytes | None = None) -> list[GradeRun]:
    """Autograde submissions on ``jobs`` worker processes (or the Dask cluster at
    ``scheduler``) and write their grades into the gradebook from this process, each as soon
    as it is graded. ``budgets`` gives an assignment's wall-clock budget per submission
    (else ``timeout``); ``salt`` fixes the hidden inputs' seeds (:func:`hidden_seed`),
    random when None."""
    todo = list(pairs) if pairs is not None else submissions(course_dir)
    if not todo:
        raise PipelineError(f"no submissions under {course_dir / 'submitted'}; expected "
                            "submitted/<student>/<assignment>/<notebook>.ipynb")
    if sandbox and not scheduler:
        from .sandbox import check_sandbox

        check_sandbox()
    work = heaviest_first(course_dir, jobs_for(course_dir, todo, sandboxed=sandbox,
                                               timeout=timeout, warm=warm, salt=salt))
    for job in work:
        job.total_timeout = (budgets or {}).get(job.assignment, timeout)
    merger = _Merger(course_dir, todo, work, sandbox)
    merger.allow()
    pool.run(work, jobs, scheduler=scheduler, progress=progress, on_done=merger.add)
    return merger.runs()


def _over_budget(out: Outcome) -> bool:
    return out.error.startswith("timed out after") and "time budget" in out.error


def _grade_beside_preflight(course_dir: Path, pairs: Sequence[tuple[str, str]],
                            names: Sequence[str], *, jobs: int, timeout: float, sandbox: bool,
                            progress: bool, factor: float, warm: bool = True,
                            started: ProcessPoolExecutor | None = None) -> list[GradeRun]:
    """The local pool grades the pre-flight's solutions first and the class beside them, so
    no worker waits for the pre-flight. Nothing is written until every solution has scored
    full marks and the gradebook holds the current sources; if one did not, grading stops
    with its reason and nothing is written. A submission handed out before the budgets were
    known gets the budget floor; one that ran out of it while its real budget is longer is
    graded again with that budget. ``started`` is the pool to grade on (:func:`.pool.start`),
    which this shuts down."""
    from concurrent.futures import ThreadPoolExecutor

    from . import preflight as pf

    checks = pf.solution_jobs(course_dir, names, sandboxed=sandbox, warm=warm)
    flight = pf.Flight(checks)
    work = heaviest_first(course_dir, jobs_for(course_dir, pairs, sandboxed=sandbox,
                                               timeout=timeout, warm=warm))
    merger = _Merger(course_dir, pairs, work, sandbox)
    given: dict[tuple[str, str, str], float] = {}
    held: list[Outcome] = []
    books = ThreadPoolExecutor(max_workers=1)
    refreshed = None

    def key(o: Job | Outcome) -> tuple[str, str, str]:
        return (o.student, o.assignment, o.notebook)

    if flight.done:  # nothing to pre-fly
        refreshed = books.submit(refresh_gradebook, course_dir, names)

    def prepare(job: Job) -> str:
        if job.student == pf.PREFLIGHT:
            return ""
        if flight.reason:
            return "not graded: the pre-flight failed"
        job.total_timeout = (flight.result().budget(job.assignment, factor, timeout)
                             if flight.done else min(timeout, pf.BUDGET_FLOOR))
        given[key(job)] = job.total_timeout
        return ""

    def on_done(out: Outcome) -> None:
        nonlocal refreshed
        if out.student == pf.PREFLIGHT:
            flight.add(out)
            if flight.done and not flight.reason and refreshed is None:
                refreshed = books.submit(refresh_gradebook, course_dir, names)
        elif _over_budget(out) and (not flight.done or flight.reason or given[key(out)]
                                    < flight.result().budget(out.assignment, factor, timeout)):
            held.append(out)  # cut by the floor: its real budget may be longer
        else:
            merger.add(out)
        if refreshed is not None and refreshed.done() and refreshed.exception() is None:
            merger.allow()

    try:
        pool.run([*checks, *work], jobs, progress=progress, on_done=on_done, prepare=prepare,
                 started=started)
        budgets = flight.result()
        assert refreshed is not None
        refreshed.result()
    finally:
        books.shutdown(wait=True)
    short = {key(o) for o in held if given[key(o)] < budgets.budget(o.assignment, factor,
                                                                    timeout)}
    again = [j for j in work if key(j) in short]
    for job in again:
        job.total_timeout = budgets.budget(job.assignment, factor, timeout)
    merger.allow()
    for out in held:
        if key(out) not in short:
            merger.add(out)
    if again:
        pool.run(again, jobs, progress=progress, on_done=merger.add)
    return merger.runs()


# -- the parent writes the gradebook ---------------------------------------------------------


def merge(course_dir: Path, student: str, assignment: str, outs: Sequence[Outcome]) -> None:
    """Write one submission's outcomes: the autograded folder and the gradebook rows.

    A failed notebook leaves no autograded copy behind (so no feedback page claims points
    for it); the gradebook keeps what it had."""
    target = course_dir / "autograded" / student / assignment
    reviews = needs_review(course_dir)
    key = f"{student}/{assignment}"
    review = [r for o in outs for r in o.review]
    if any(not o.ok for o in outs) or not outs:
        shutil.rmtree(target, ignore_errors=True)
        shutil.rmtree(course_dir / "feedback" / student / assignment, ignore_errors=True)
        return
    shutil.rmtree(target, ignore_errors=True)
    # Regular files only: a link in the submission is never followed (this runs as root).
    skipped = copy_submission(course_dir / "submitted" / student / assignment, target,
                              skip_suffix=".ipynb")
    note = skipped_note(skipped)
    if note:
        outs[0].error = "; ".join(filter(None, (outs[0].error, note)))
    for o in outs:
        (target / f"{o.notebook}.ipynb").write_text(o.executed, encoding="utf-8")
    if review:
        reviews[key] = review
    else:
        reviews.pop(key, None)
    save_reviews(course_dir, reviews)
    _write_grades(course_dir, student, assignment,
                  {o.notebook: nbformat.reads(o.executed, as_version=4) for o in outs},
                  flagged=bool(review),
                  timestamp=submitted_at(course_dir / "submitted" / student / assignment))


def submitted_at(folder: Path) -> datetime.datetime | None:
    """When the submission in ``folder`` was made: its ``timestamp.txt``, which nbgrader's
    ``submit`` writes and ``collect`` keeps (the gradebook computes lateness from it), or None
    when it is missing, empty or unreadable."""
    from nbgrader.utils import parse_utc

    try:
        text = (folder / "timestamp.txt").read_text(encoding="utf-8").strip()
        return parse_utc(text) if text else None
    except (OSError, ValueError, OverflowError):
        return None


def _write_grades(course_dir: Path, student: str, assignment: str,
                  notebooks: dict[str, nbformat.NotebookNode], flagged: bool,
                  timestamp: datetime.datetime | None = None) -> None:
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        if timestamp is not None:
            gb.update_or_create_submission(assignment, student, timestamp=timestamp)
        else:
            gb.update_or_create_submission(assignment, student)
        for name, nb in notebooks.items():
            scores_ = expected_scores(nb, flagged)
            sub = gb.find_submission_notebook(name, assignment, student)
            for grade in sub.grades:
                try:
                    grade = gb.find_grade(grade.name, name, assignment, student)
                except MissingEntry:
                    continue
                code = grade.cell.cell_type == "code"
                # A deleted test cell is absent from the notebook and scores 0.
                grade.auto_score = scores_.get(grade.name, 0.0 if code else None)
                if grade.auto_score is None:
                    if grade.manual_score is None:
                        # A written answer nobody has marked yet; once it is marked, only
                        # the formgrader changes its flag.
                        grade.needs_manual_grade = True
                else:
                    grade.needs_manual_grade = flagged and code
            gb.db.commit()


def clear_review(course_dir: Path, student: str, assignment: str) -> None:
    """An instructor cleared a flagged submission: its test cells get their real scores."""
    reviews = needs_review(course_dir)
    if reviews.pop(f"{student}/{assignment}", None) is None:
        raise PipelineError(f"{student}/{assignment} is not awaiting review")
    folder = course_dir / "autograded" / student / assignment
    nbs = {p.stem: read_notebook(p) for p in sorted(folder.glob("*.ipynb"))}
    _write_grades(course_dir, student, assignment, nbs, flagged=False)
    save_reviews(course_dir, reviews)


def reconcile(course_dir: Path, pairs: Iterable[tuple[str, str]]) -> list[str]:
    """Recompute every score from the autograded notebooks and compare with the gradebook;
    one line per difference, naming student, assignment and cell."""
    from nbgrader.api import Gradebook, MissingEntry

    reviews = needs_review(course_dir)
    problems = []
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        for student, assignment in pairs:
            folder = course_dir / "autograded" / student / assignment
            for path in sorted(folder.glob("*.ipynb")):
                want = expected_scores(read_notebook(path),
                                       f"{student}/{assignment}" in reviews)
                try:
                    sub = gb.find_submission_notebook(path.stem, assignment, student)
                except MissingEntry:
                    problems.append(f"{student}/{assignment}: graded notebook {path.name} "
                                    "has no gradebook entry")
                    continue
                for g in sub.grades:
                    expect = want.get(g.name, 0.0 if g.cell.cell_type == "code" else None)
                    if g.auto_score != expect and not (g.auto_score is None and expect is None):
                        problems.append(f"{student}/{assignment} cell {g.name}: gradebook "
                                        f"{g.auto_score}, autograded notebook {expect}")
    return problems


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


def write_feedback(course_dir: Path, which: Iterable[str],
                   progress: TextIO | None = None) -> list[str]:
    """``nbgrader generate_feedback`` for each assignment, then every page read back: a page
    that shows a line of a hidden test or a solution is deleted and named. Returns one-line
    errors, if any. With ``progress`` (a terminal's stderr), one line per assignment as it
    is written, and one for the check of the pages."""
    from ..results.feedback import scan_feedback

    def say(text: str) -> None:
        print(text, file=progress or io.StringIO(), flush=True)  # None: the lines go nowhere

    errors = []
    which = list(which)
    for n, a in enumerate(which, 1):
        began = time.monotonic()
        proc = nbgrader(course_dir, "generate_feedback", a, "--force")
        pages = len(list((course_dir / "feedback").glob(f"*/{a}/*.html")))
        failed = proc.returncode != 0 or "| ERROR]" in proc.stderr
        if failed:
            errors.append(f"feedback for {a}: {last_error(proc)}")
        say(f"[feedback {n}/{len(which)}] {a}: {pages} page(s) in "
            f"{time.monotonic() - began:.1f}s{' FAILED' if failed else ''}")
    say("[feedback] checking every page for hidden-test and solution lines")
    for problem in scan_feedback(course_dir):
        page = course_dir / problem.split(" shows ", 1)[0]
        page.unlink(missing_ok=True)
        errors.append(f"refused to write {problem}")
    return errors


def _start_pool(course_dir: Path, names: Sequence[str], jobs: int, n_jobs: int,
                warm: bool) -> ProcessPoolExecutor:
    """The local pool for grading ``names``: at most ``jobs`` workers (and no more than the
    ``n_jobs`` it will grade), each starting a warm template with the sandbox and the
    imports the jobs of :func:`jobs_for` will ask for, when ``warm``."""
    template = None
    if warm:
        from .sandbox import default_sandbox
        from .warm import imports_of

        texts = [p.read_text(encoding="utf-8") for a in names
                 for p in sorted((course_dir / "source" / a).glob("*.ipynb"))]
        template = (default_sandbox().readonly, imports_of(texts))
    return pool.start(min(jobs, n_jobs), template)


def grade_class(course_dir: Path, which: Sequence[str] | None = None, *,
                jobs: int = DEFAULT_JOBS, timeout: float = 600, sandbox: bool = True,
                scheduler: str | None = None, progress: bool = True,
                budget_factor: float | None = None, warm: bool = True) -> ClassResults:
    """Autograde every submission under ``submitted/`` (of ``which`` assignments, or all),
    after a pre-flight that grades each assignment's own solution the same way (it stops,
    writing nothing, if the solution loses a point) and after recording the current source
    notebooks in the gradebook; then recompute every score from the autograded notebooks
    and compare it with the gradebook. Each submission may take ``budget_factor`` times
    the solution's time here (:mod:`.preflight`), never more than ``timeout`` seconds."""
    from .preflight import BUDGET_FACTOR, preflight

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
    refused = [GradeRun(s, a, ok=False, error=unsafe_id(s), sandboxed=sandbox)
               for s, a in pairs if unsafe_id(s)]
    pairs = [(s, a) for s, a in pairs if not unsafe_id(s)]
    names = sorted({a for _, a in pairs})
    start = time.monotonic()
    # The local pool's workers start now, each with its warm template, while the pre-flight
    # and the class's jobs are read below.
    started = (_start_pool(course_dir, names, jobs, len(pairs) + len(names),
                           warm and sandbox)
               if pairs and not scheduler and jobs > 1 else None)
    try:
        # A damaged record beside the gradebook stops grading before anything is written,
        # naming the file (grading would otherwise overwrite what it held).
        needs_review(course_dir)
        if sandbox and not scheduler:
            from .sandbox import check_sandbox

            check_sandbox()
        factor = BUDGET_FACTOR if budget_factor is None else budget_factor
        if not pairs:
            runs: list[GradeRun] = []
        elif scheduler:
            # A cluster takes every job at once: the pre-flight goes first, then the class.
            flight = preflight(course_dir, names, jobs=jobs, sandboxed=sandbox,
                               scheduler=scheduler, warm=warm)
            refresh_gradebook(course_dir, names)
            runs = autograde(course_dir, pairs, jobs=jobs, timeout=timeout, sandbox=sandbox,
                             scheduler=scheduler, progress=progress,
                             budgets={a: flight.budget(a, factor, timeout) for a in names},
                             warm=warm)
        else:
            runs = _grade_beside_preflight(course_dir, pairs, names, jobs=jobs,
                                           timeout=timeout, sandbox=sandbox,
                                           progress=progress, factor=factor, warm=warm,
                                           started=started)
            started = None  # the run shut it down
    finally:
        if started is not None:
            started.shutdown(cancel_futures=True)
    runs += refused
    took = time.monotonic() - start
    save_runs(course_dir, runs)
    wanted = set(pairs)
    rows = [r for r in scores(course_dir) if (r.student, r.assignment) in wanted]
    mismatches = reconcile(course_dir, [(r.student, r.assignment) for r in runs if r.ok])
    reviews = {k: v for k, v in needs_review(course_dir).items()
               if tuple(k.split("/", 1)) in wanted}
    seeded = {a: mutants_of(course_dir, a) for a in names}
    return ClassResults(rows, runs, reviews, seeded, took, mismatches)
