"""Run many variants of one notebook fast: one warm interpreter, a forked child per variant.

Measuring the Validate catch rate means running a release notebook once per mutant. Real
``nbgrader validate`` pays a Python start, an nbgrader import and a kernel start (with
``import anthropic``) every time, about 4 s of CPU before the first cell runs. Here one
worker process imports IPython and the course's libraries once, then forks a child per
variant. Each child starts from the same clean state, runs every code cell in a fresh
IPython shell the way nbgrader's Execute preprocessor does (errors do not stop the run; a
cell gets 30 s), and scores each graded cell by nbgrader's own rule (``determine_grade``):
an error or anything on stderr fails it, a bare value that reads as a number is a partial
grade, any other bare value passes with a warning.

``tests/test_validate.py`` checks that this agrees with real ``nbgrader validate`` on every
mutant of a notebook. The worker runs with the same kernel set-up as a student's Validate
(the network guard installed, ``MPLBACKEND=Agg``) in a scratch folder of its own.

It runs the course's own notebooks and mutants, which are trusted. Student submissions are
never run here: they are graded by nbgrader in the sandbox (:mod:`.sandbox`).
"""

from __future__ import annotations

import ast
import gc
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

CELL_TIMEOUT = 30  # seconds, as the student's Validate (c.Execute.timeout)


@dataclass(frozen=True)
class CellRun:
    """How one code cell came out in one variant (graded cells by nbgrader's rule, the
    others by whether they raised)."""

    index: int  # the cell's place among the notebook's code cells
    grade_id: str  # "" for a cell that is not a graded test cell
    passed: bool
    error: str  # the first line of the error, or of what went to stderr ("" if none)
    warning: str  # nbgrader's "cannot be converted to a float" warning, if it would print


def _cells(nb: nbformat.NotebookNode) -> list[dict[str, Any]]:
    """The code cells of ``nb`` as the worker needs them."""
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get("nbgrader", {})
        out.append({"source": cell.source,
                    "grade_id": meta.get("grade_id", "") if meta.get("grade") else "",
                    "points": float(meta.get("points", 0) or 0)})
    return out


def run_variants(notebooks: Sequence[nbformat.NotebookNode], root: Path,
                 cell_timeout: int = CELL_TIMEOUT, seeds: Sequence[int] | None = None
                 ) -> list[list[CellRun]]:
    """Run each notebook in its own forked child of one warm worker; one list per notebook.
    ``seeds`` gives each notebook's hidden seed (:func:`course.observe.hidden_seed`; 0 for
    all when None).

    ``root`` is put on the worker's ``PYTHONPATH`` and the worker imports ``course``
    from there, as a student's kernel does. A cell running past ``cell_timeout``
    seconds fails, and the run goes on with the next cell. Raises ``RuntimeError``
    naming the cause if the worker itself fails.
    """
    from ..runner import nbgrader_env  # the environment every grading process gets

    with tempfile.TemporaryDirectory(prefix="quickrun-") as scratch:
        job = Path(scratch) / "job.json"
        job.write_text(json.dumps({"cell_timeout": cell_timeout,
                                   "variants": [_cells(nb) for nb in notebooks],
                                   "seeds": list(seeds or [0] * len(notebooks))}),
                       encoding="utf-8")
        env = nbgrader_env()
        env["PYTHONPATH"] = str(root)
        env["MPLBACKEND"] = "Agg"
        # Run by path with -P: the worker imports ``course`` from ``root`` (which may be a
        # student copy, without course/grading/), never from this checkout.
        # Every cell is bounded, so the worker is too: a start-up allowance plus, per
        # notebook, its cells' limits (the children run one at a time).
        bound = 120 + sum((cell_timeout + _GRACE) * len(_cells(nb)) for nb in notebooks)
        proc = subprocess.run([sys.executable, "-P", __file__, str(job)],
                              cwd=scratch, env=env, capture_output=True, text=True,
                              timeout=bound)
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"the quick-run worker exited with {proc.returncode}: {tail}")
        results = json.loads(proc.stdout.strip().splitlines()[-1])
    return [[CellRun(**c) for c in variant] for variant in results]


def run_many(notebooks: Sequence[nbformat.NotebookNode], root: Path, jobs: int = 2,
             seeds: Sequence[int] | None = None) -> list[list[CellRun]]:
    """:func:`run_variants` split across ``jobs`` warm workers at once; results in order."""
    from ..runner import parallel

    chunks = [list(range(i, len(notebooks), jobs)) for i in range(min(jobs, len(notebooks)))]
    ran = parallel(lambda idx: run_variants(
        [notebooks[i] for i in idx], root,
        seeds=None if seeds is None else [seeds[i] for i in idx]), chunks, jobs)
    out: list[list[CellRun]] = [[] for _ in notebooks]
    for idx, runs in zip(chunks, ran, strict=True):
        for i, cells in zip(idx, runs, strict=True):
            out[i] = cells
    return out


# -- the worker ------------------------------------------------------------------------


TIMED_OUT = "CellTimeoutError: the cell ran past its time limit"
_STUCK = 124  # a child's exit status when a cell ignored its interrupt
_GRACE = 2  # seconds a timed-out cell gets to unwind before its child is ended


class _Timeout(BaseException):
    """Raised into a cell that ran past its limit, as the kernel's interrupt would be."""


_timed_out = [False]


def _on_alarm(signum: int, frame: Any) -> None:
    if _timed_out[0]:  # the cell caught the interrupt and kept going
        os._exit(_STUCK)
    _timed_out[0] = True
    signal.alarm(_GRACE)
    raise _Timeout(TIMED_OUT)


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def _score(index: int, cell: dict[str, Any], error: str, stderr: str, value: Any
           ) -> CellRun:
    """nbgrader's ``determine_grade`` for a graded cell, from what the cell did; an
    ungraded cell passes when it raised nothing."""
    gid = cell["grade_id"]
    if not gid:
        return CellRun(index, "", not error, error, "")
    if error or stderr:
        return CellRun(index, gid, False, error or _first_line(stderr), "")
    if value is not None:
        text = repr(value)
        try:
            return CellRun(index, gid, float(text) >= cell["points"], "", "")
        except ValueError:
            return CellRun(index, gid, True, "", f"Cell output is {text!r}, which cannot "
                           "be converted to a float")
    return CellRun(index, gid, True, "", "")


def _run_one(shell: Any, cells: list[dict[str, Any]], cell_timeout: int
             ) -> list[dict[str, Any]]:
    """In a forked child: run every cell in the (still unused) shell, score the graded ones."""
    runs = []
    for index, cell in enumerate(cells):
        out, err = io.StringIO(), io.StringIO()
        error, value = "", None
        _timed_out[0] = False
        signal.alarm(cell_timeout)
        try:
            with redirect_stdout(out), redirect_stderr(err):
                result = shell.run_cell(cell["source"], store_history=False)
            exc = result.error_in_exec or result.error_before_exec
            if exc is not None:
                error = _first_line(f"{type(exc).__name__}: {exc}") or type(exc).__name__
            value = result.result
        except _Timeout:
            pass
        finally:
            signal.alarm(0)
        if _timed_out[0]:  # a timed-out cell fails even if it caught the interrupt
            error, value = TIMED_OUT, None
        runs.append(_score(index, cell, error, err.getvalue(), value).__dict__)
    return runs


def imported_modules(sources: Iterable[str]) -> list[str]:
    """The modules the code in ``sources`` imports, in first-seen order; ``from a import b``
    names ``a`` and ``a.b``, since ``b`` may be a module (whoever imports them skips a name
    that is none). A cell that does not parse, or a relative import, adds nothing."""
    found: dict[str, None] = {}
    for source in sources:
        try:
            tree = ast.parse(source)  # a single-threaded child process (see ..syntax)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(dict.fromkeys(a.name for a in node.names))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found[node.module] = None
                found.update(dict.fromkeys(f"{node.module}.{a.name}" for a in node.names
                                           if a.name != "*"))
    return list(found)


def _warm_up(modules: Sequence[str]) -> None:
    """Pay once what every notebook pays on its first run: the imports its cells make, the
    student side of ``course`` with them, and matplotlib's font loading.

    Importing a module runs its top level, which sets up nothing a notebook's own import
    would not set up the same way, so each child still starts as a fresh kernel would. A
    module that fails to import is left for the notebook to fail on.
    """
    import importlib
    import pkgutil

    import course

    wanted = [*modules, *(m.name for m in pkgutil.walk_packages(course.__path__, "course.")
                          if not m.name.startswith(("course.grading", "course.__main__")))]
    for name in wanted:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - the notebook will report it
            continue
    try:  # matplotlib reads its font list on the first figure it draws
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=(1, 1))
        fig.add_subplot().set_title("warm")
        FigureCanvasAgg(fig).print_png(io.BytesIO())
    except ImportError:
        pass


def _worker(job: Path) -> list[list[dict[str, Any]]]:
    """Warm up once, then fork a child per variant and collect what each reports."""
    from IPython.core.interactiveshell import InteractiveShell

    import course.netguard as netguard

    spec = json.loads(job.read_text(encoding="utf-8"))
    variants, cell_timeout = spec["variants"], int(spec["cell_timeout"])
    seeds = [int(x) for x in spec["seeds"]]
    _warm_up(imported_modules(c["source"] for cells in variants for c in cells))
    gc.freeze()  # children need not copy the warm objects to scan them for garbage
    netguard.install()
    import course.hub
    import course.observe

    # The course's own notebooks, judged in the process that recorded them: their fakes are
    # built here, so their request logs are plain lists (see course.hub.log_of).
    course.hub.TRUST_LOCAL = True
    from traitlets.config import Config

    config = Config({"HistoryManager": {"hist_file": ":memory:"}})  # as the kernel's
    shell = InteractiveShell.instance(config=config, xmode="Minimal", colors="NoColor")
    signal.signal(signal.SIGALRM, _on_alarm)
    results = []
    for i, cells in enumerate(variants):
        folder = job.parent / f"v{i}"
        folder.mkdir()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: a clean copy of the warm worker
            os.close(read)
            code = 0
            try:
                os.chdir(folder)
                course.observe.use_seed(seeds[i])
                payload = json.dumps(_run_one(shell, cells, cell_timeout)).encode()
            except BaseException as exc:  # noqa: BLE001 - reported to the parent, not lost
                payload = json.dumps({"crash": f"{type(exc).__name__}: {exc}"}).encode()
                code = 1
            with os.fdopen(write, "wb") as pipe:
                pipe.write(payload)
            os._exit(code)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            payload = pipe.read()
        _, status = os.waitpid(pid, 0)
        if payload:
            report = json.loads(payload)
        elif os.WIFEXITED(status) and os.WEXITSTATUS(status) == _STUCK:
            report = {"crash": f"{TIMED_OUT}, and would not stop when interrupted"}
        else:
            report = {"crash": f"the notebook's process died (status {status}) mid-run"}
        if isinstance(report, dict):  # the child crashed: every graded cell fails
            report = [CellRun(n, c["grade_id"], False, report["crash"], "").__dict__
                      for n, c in enumerate(cells)]
        results.append(report)
    return results


if __name__ == "__main__":
    print(json.dumps(_worker(Path(sys.argv[1]))))
