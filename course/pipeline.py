"""Drive nbgrader for the course: build, release, solutions, parallel autograde, feedback, scores.

Every nbgrader step runs as its own process with the course's ``nbgrader_config.py``.
Autograding runs one process per (student, assignment), several at once: a kernel that
dies, a notebook that hangs or a malformed file then costs that one submission only,
and grades already written to the gradebook stay written.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from . import authoring
from .mutation import Mutant, answer_text, load_mutants, submission

CONFIG_FILE = "nbgrader_config.py"
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"
# Arguments for every kernel the course starts: no history file, network guard on.
KERNEL_ARGS = [
    "--HistoryManager.hist_file=:memory:",
    "--IPKernelApp.exec_lines=['import course.netguard as _ng; _ng.install(); del _ng']",
]
DEFAULT_JOBS = max(1, min(4, os.cpu_count() or 1))


class PipelineError(RuntimeError):
    """A course operation that cannot go ahead; the message says what to do."""


# -- discovery --------------------------------------------------------------------------


def repo_root(start: Path | None = None) -> Path:
    """The course directory: the nearest folder upwards holding ``nbgrader_config.py``."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    raise PipelineError(f"no {CONFIG_FILE} here or above {here}; run from the course folder")


def assignments(root: Path) -> list[str]:
    """Assignment ids: the folders of ``source/`` that hold a notebook."""
    src = root / "source"
    return sorted(p.name for p in src.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))) \
        if src.is_dir() else []


def select(root: Path, wanted: Sequence[str] | None) -> list[str]:
    """``wanted`` checked against the known assignments (all of them when empty)."""
    known = assignments(root)
    if not known:
        raise PipelineError(f"no assignments under {root / 'source'}; run `python -m course build`")
    if not wanted:
        return known
    unknown = [a for a in wanted if a not in known]
    if unknown:
        raise PipelineError(
            f"unknown assignment(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return list(wanted)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read a notebook, turning any malformation into a one-line :class:`PipelineError`."""
    try:
        return nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several unrelated types for bad files
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise PipelineError(f"{path}: not a readable notebook ({reason})") from None


# -- running nbgrader ------------------------------------------------------------------


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    env["COURSE_GRADING"] = "1"
    # nbgrader runs `alembic` and `jupyter` by name: put this interpreter's scripts first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("MPLBACKEND", "Agg")
    return env


def nbgrader(course_dir: Path, *args: str, timeout: float | None = None
             ) -> subprocess.CompletedProcess[str]:
    """Run one nbgrader command in ``course_dir`` and return the finished process."""
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=course_dir, env=_env(), capture_output=True, text=True, timeout=timeout,
    )


def _last_error(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
    errors = [ln for ln in lines if "[ERROR]" in ln or "Error" in ln]
    return (errors or lines or [f"exit code {proc.returncode}"])[-1].strip()


def generate(course_dir: Path, assignment: str) -> None:
    """``nbgrader generate_assignment``: the student version plus the gradebook entry."""
    proc = nbgrader(course_dir, "generate_assignment", assignment, "--force")
    if proc.returncode != 0:
        raise PipelineError(f"generate_assignment {assignment} failed: {_last_error(proc)}")


def generate_all(course_dir: Path, names: Sequence[str], jobs: int = DEFAULT_JOBS) -> None:
    """Generate several assignments. The first runs alone: it creates the gradebook, and
    two processes creating the same SQLite schema at once collide."""
    if names:
        generate(course_dir, names[0])
        parallel(lambda a: generate(course_dir, a), list(names[1:]), jobs)


def scratch_course(root: Path, which: Iterable[str], base: Path | None = None) -> Path:
    """A fresh nbgrader course folder holding the config and the chosen ``source/`` folders."""
    course = Path(tempfile.mkdtemp(prefix="course-", dir=base))
    shutil.copy2(root / CONFIG_FILE, course / CONFIG_FILE)
    for a in which:
        shutil.copytree(root / "source" / a, course / "source" / a)
    return course


def parallel(fn, items: Sequence, jobs: int) -> list:
    if jobs <= 1 or len(items) <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, items))


# -- build, release, solutions ---------------------------------------------------------


def _sync(target: Path, expected: dict[Path, bytes], check: bool) -> list[str]:
    """Write ``expected`` files under ``target`` (or, with ``check``, list what differs)."""
    problems = []
    present = {p for p in target.rglob("*") if p.is_file()} if target.exists() else set()
    for path, data in sorted(expected.items()):
        if not path.is_file() or path.read_bytes() != data:
            problems.append(f"{path} is out of date")
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_bytes(data)
                tmp.replace(path)
    for stale in sorted(present - set(expected)):
        if stale.name == "README.md" and stale.parent == target:
            continue
        problems.append(f"{stale} should not exist")
        if not check:
            stale.unlink()
    return problems


def build_sources(root: Path, check: bool = False) -> list[str]:
    """authoring/*.py -> source/*.ipynb. Returns what was (or, with check, would be) changed."""
    built = {p: t.encode() for p, t in authoring.build_all(root).items()}
    # Files beside the notebooks (data an assignment ships) are not generated: keep them.
    src = root / "source"
    extras = [p for p in src.rglob("*") if p.is_file() and p.suffix != ".ipynb"] \
        if src.exists() else []
    built.update({p: p.read_bytes() for p in extras})
    return _sync(src, built, check)


def release(root: Path, which: Sequence[str] | None = None, check: bool = False,
            jobs: int = DEFAULT_JOBS) -> list[str]:
    """Generate every student version into ``release/`` (or check that it is up to date)."""
    names = select(root, which)
    course = scratch_course(root, names)
    try:
        generate_all(course, names, jobs)
        expected = {
            root / "release" / p.relative_to(course / "release"): p.read_bytes()
            for p in (course / "release").rglob("*") if p.is_file()
        }
        if which:
            expected.update(_untouched(root / "release", names))
        return _sync(root / "release", expected, check)
    finally:
        shutil.rmtree(course, ignore_errors=True)


def _untouched(folder: Path, names: Sequence[str]) -> dict[Path, bytes]:
    """On a partial run, the files of the other assignments, to be left as they are."""
    return {p: p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.relative_to(folder).parts[0] not in names}


def refresh_gradebook(root: Path, names: Iterable[str]) -> None:
    """Record the current source notebooks in the instructor gradebook (without touching
    ``release/``), so autograde restores the right tests."""
    with tempfile.TemporaryDirectory() as out:
        for a in names:
            proc = nbgrader(root, "generate_assignment", a, "--force",
                            f"--CourseDirectory.release_directory={out}")
            if proc.returncode != 0:
                raise PipelineError(f"updating the gradebook for {a} failed: {_last_error(proc)}")


def strip_hidden(source: str) -> str:
    """Remove the ``### BEGIN/END HIDDEN TESTS`` regions of a cell."""
    out, hidden = [], False
    for line in source.split("\n"):
        if HIDDEN_BEGIN in line:
            hidden = True
        elif HIDDEN_END in line:
            hidden = False
        elif not hidden:
            out.append(line)
    return "\n".join(out)


def solution_notebook(source_nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The instructor's solution: answers filled in, hidden tests removed, not yet executed."""
    nb = nbformat.reads(nbformat.writes(source_nb), as_version=4)
    for cell in nb.cells:
        cell.source = strip_hidden(answer_text(cell.source))
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 120) -> nbformat.NotebookNode:
    """Run a notebook top to bottom offline (network guard on), raising on the first error."""
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}},
        extra_arguments=KERNEL_ARGS, record_timing=False, store_widget_state=False,
    )
    old = os.environ.get("MPLBACKEND")
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    try:
        client.execute()
    finally:
        if old is None:
            os.environ.pop("MPLBACKEND", None)
    # How stdout is cut into messages depends on timing; one output per stream is stable.
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = _coalesce(cell.outputs)
    return nb


def _coalesce(outputs: list) -> list:
    merged: list = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged
                and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def build_solutions(root: Path, which: Sequence[str] | None = None, check: bool = False,
                    jobs: int = DEFAULT_JOBS) -> list[str]:
    """Execute every solution notebook into ``solutions/`` (or check it is up to date)."""
    names = select(root, which)
    paths = [p for a in names for p in sorted((root / "source" / a).glob("*.ipynb"))]

    def run(path: Path) -> tuple[Path, bytes]:
        nb = execute(solution_notebook(read_notebook(path)), path.parent)
        target = root / "solutions" / path.parent.name / path.name
        return target, (nbformat.writes(nb) + "\n").encode()

    expected = dict(parallel(run, paths, jobs))
    if which:
        expected.update(_untouched(root / "solutions", names))
    return _sync(root / "solutions", expected, check)


STUDENT_FILES = ("release", "course", "pyproject.toml", "environment.yml", "dev")
STUDENT_README = """# Owning the Agent Loop (student copy)

    ./dev lab

opens JupyterLab. Your notebooks are in `release/`: each says at the top what you
implement. Run the self-check cell, then **Validate**. Hidden tests grade more than the
visible ones. Nothing needs an API key or the network.
"""


def export_student(root: Path, target: Path) -> list[Path]:
    """Copy what a student needs (release/ and the support package) into ``target``.

    ``source/``, ``solutions/``, ``authoring/`` and ``tests/`` stay behind: they hold the
    answers and the hidden tests.
    """
    if target.exists() and any(target.iterdir()):
        raise PipelineError(f"{target} is not empty; export into a new folder")
    staging = Path(tempfile.mkdtemp(prefix="student-", dir=target.parent
                                    if target.parent.exists() else None))
    try:
        for name in STUDENT_FILES:
            src = root / name
            if src.is_dir():
                shutil.copytree(src, staging / name, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.egg-info", ".ipynb_checkpoints"))
            elif src.is_file():
                shutil.copy2(src, staging / name)
        (staging / "README.md").write_text(STUDENT_README, encoding="utf-8")
        if target.exists():
            target.rmdir()
        staging.replace(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sorted(p for p in target.rglob("*") if p.is_file())


# -- grading ---------------------------------------------------------------------------


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
        return GradeRun(student, assignment, ok, "" if ok else _last_error(proc),
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


def feedback(course_dir: Path, which: Iterable[str]) -> list[str]:
    """``nbgrader generate_feedback`` for each assignment; returns one-line errors, if any."""
    errors = []
    for a in which:
        proc = nbgrader(course_dir, "generate_feedback", a, "--force")
        if proc.returncode != 0:
            errors.append(f"feedback for {a}: {_last_error(proc)}")
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


# -- sample submissions (the demo and the integrity checks) ------------------------------


@dataclass(frozen=True)
class Sample:
    """A submission built from the solution: full, untouched stub, or with a mutant."""

    student: str
    assignment: str
    kind: str  # "solution" | "stub" | "mutant"
    mutant: Mutant | None = None

    def expected_losses(self, auto_cells: Iterable[str]) -> set[str]:
        if self.kind == "solution":
            return set()
        if self.kind == "stub":
            return set(auto_cells)
        assert self.mutant is not None
        return set(self.mutant.loses)


def samples(root: Path, assignment: str, mutants: str = "all") -> list[Sample]:
    """The sample submissions for one assignment: solution, stub and mutants."""
    out = [Sample("solution", assignment, "solution"), Sample("stub", assignment, "stub")]
    found = load_mutants(root / "tests" / "mutants" / f"{assignment}.py")
    chosen = found if mutants == "all" else found[:1] if mutants == "first" else []
    out += [Sample(f"bug-{m.name}", assignment, "mutant", m) for m in chosen]
    return out


def write_samples(course_dir: Path, chosen: Sequence[Sample]) -> None:
    """Write the sample submissions under ``course_dir/submitted`` from its release."""
    for s in chosen:
        for rel_nb in sorted((course_dir / "release" / s.assignment).glob("*.ipynb")):
            src_nb = read_notebook(course_dir / "source" / s.assignment / rel_nb.name)
            nb = submission(read_notebook(rel_nb), src_nb, s.mutant, answer=s.kind != "stub")
            target = course_dir / "submitted" / s.student / s.assignment / rel_nb.name
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
