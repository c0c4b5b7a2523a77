"""Run nbgrader for the course: find the course, start nbgrader processes, fan work out.

Every nbgrader step runs as its own process with the course's ``nbgrader_config.py``, so a
kernel that dies, a notebook that hangs or a malformed file costs that one step only.
This module knows how to start such a process and where the course is; what to run is
decided by :mod:`.build`, :mod:`.grade` and :mod:`.export`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import nbformat

T = TypeVar("T")
R = TypeVar("R")

CONFIG_FILE = "nbgrader_config.py"
#: Seconds a cell may run when the course's config sets no ``c.Execute.timeout``.
CELL_TIMEOUT = 30
# Arguments for every kernel the course starts: no history file, network guard on.
KERNEL_ARGS = [
    "--HistoryManager.hist_file=:memory:",
    "--IPKernelApp.exec_lines=['import course.netguard as _ng; _ng.install(); del _ng']",
]
DEFAULT_JOBS = max(1, min(4, os.cpu_count() or 1))


def quiet_nbgrader_warnings() -> None:
    """Keep SQLAlchemy's ``SAWarning``s that nbgrader's gradebook raises (an object "not in
    session" during autoflush, on every submission) out of the instructor's terminal; they
    are nbgrader's own and say nothing about a grade. Other warnings still show."""
    try:
        from sqlalchemy.exc import SAWarning
    except ImportError:  # no gradebook here, so none of its warnings
        return
    warnings.filterwarnings("ignore", category=SAWarning, module=r"nbgrader(\.|$)")


quiet_nbgrader_warnings()


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


def nbgrader_env() -> dict[str, str]:
    """The environment for an nbgrader process (or anything it starts): this interpreter's
    scripts first on PATH, no inherited warning filters, a headless matplotlib."""
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    # nbgrader runs `alembic` and `jupyter` by name: put this interpreter's scripts first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("MPLBACKEND", "Agg")
    return env


#: ``python -m nbgrader``, after ``import course`` has deferred the IRI grammar build that
#: jsonschema's import would otherwise pay in every nbgrader command (:mod:`course.lazyiri`).
NBGRADER_MAIN = ("import course, runpy; "
                 "from course.grading.runner import quiet_nbgrader_warnings as _q; _q(); "
                 "runpy.run_module('nbgrader', run_name='__main__', alter_sys=True)")


def nbgrader(course_dir: Path, *args: str, timeout: float | None = None
             ) -> subprocess.CompletedProcess[str]:
    """Run one nbgrader command in ``course_dir`` and return the finished process."""
    return subprocess.run(
        [sys.executable, "-c", NBGRADER_MAIN, *args],
        cwd=course_dir, env=nbgrader_env(), capture_output=True, text=True, timeout=timeout,
    )


def last_error(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
    # nbgrader logs "[AutogradeApp | ERROR] ..." (the app's name before the level).
    errors = [ln for ln in lines if re.search(r"\[(\w+ \| )?ERROR\]", ln) or "Error" in ln]
    return (errors or lines or [f"exit code {proc.returncode}"])[-1].strip()


def scratch_course(root: Path, which: Iterable[str], base: Path | None = None) -> Path:
    """A fresh nbgrader course folder holding the config and the chosen ``source/`` folders."""
    course = Path(tempfile.mkdtemp(prefix="course-", dir=base))
    shutil.copy2(root / CONFIG_FILE, course / CONFIG_FILE)
    for a in which:
        shutil.copytree(root / "source" / a, course / "source" / a)
    return course


def parallel(fn: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """``fn`` over ``items``, ``jobs`` threads at a time, results in order."""
    if jobs <= 1 or len(items) <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, items))


def cell_timeout(course_dir: Path) -> float:
    """``c.Execute.timeout`` from the course's ``nbgrader_config.py``."""
    from traitlets.config.loader import PyFileConfigLoader

    try:
        cfg = PyFileConfigLoader(CONFIG_FILE, path=str(course_dir)).load_config()
        return float(cfg.Execute.timeout) if "timeout" in cfg.Execute else CELL_TIMEOUT
    except Exception:  # noqa: BLE001 - a broken config is nbgrader's to report
        return CELL_TIMEOUT
