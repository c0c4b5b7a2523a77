"""Build the generated folders: ``source/`` from ``authoring/``, ``release/`` with
nbgrader's ``generate_assignment``, and ``solutions/`` by executing each solution.

Each build either writes its folder or, with ``check=True``, lists what is out of date,
which is how CI proves the committed folders match a fresh build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from traitlets.config import Config

from ..extras import install_hint, missing_module
from ..runner import (
    DEFAULT_JOBS,
    KERNEL_ARGS,
    PipelineError,
    last_error,
    nbgrader,
    parallel,
    read_notebook,
    scratch_course,
    select,
)
from . import markers, scripts


def generate(course_dir: Path, assignment: str) -> None:
    """``nbgrader generate_assignment``: the student version plus the gradebook entry."""
    proc = nbgrader(course_dir, "generate_assignment", assignment, "--force")
    if proc.returncode != 0:
        raise PipelineError(f"generate_assignment {assignment} failed: {last_error(proc)}")


def generate_all(course_dir: Path, names: Sequence[str], jobs: int = DEFAULT_JOBS) -> None:
    """Generate several assignments. The first runs alone: it creates the gradebook, and
    two processes creating the same SQLite schema at once collide."""
    if names:
        generate(course_dir, names[0])
        parallel(lambda a: generate(course_dir, a), list(names[1:]), jobs)


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
    built = {p: t.encode() for p, t in scripts.build_all(root).items()}
    # Files beside the notebooks (data an assignment ships) are not generated: keep them.
    src = root / "source"
    extras = [p for p in src.rglob("*") if p.is_file() and p.suffix != ".ipynb"] \
        if src.exists() else []
    built.update({p: p.read_bytes() for p in extras})
    return _sync(src, built, check)


def release(root: Path, which: Sequence[str] | None = None, check: bool = False,
            jobs: int = DEFAULT_JOBS, generated: Path | None = None) -> list[str]:
    """Generate every student version into ``release/`` (or check that it is up to date).

    ``generated`` is a scratch course (:func:`.runner.scratch_course`) in which these
    assignments were already generated from the current ``source/``; its ``release/`` is
    used instead of generating again.
    """
    names = select(root, which)
    course = generated or scratch_course(root, names)
    try:
        if generated is None:
            generate_all(course, names, jobs)
        expected = {
            root / "release" / p.relative_to(course / "release"): p.read_bytes()
            for p in (course / "release").rglob("*") if p.is_file()
        }
        if which:
            expected.update(_untouched(root / "release", names))
        return _sync(root / "release", expected, check)
    finally:
        if generated is None:
            shutil.rmtree(course, ignore_errors=True)


def _untouched(folder: Path, names: Sequence[str]) -> dict[Path, bytes]:
    """On a partial run, the files of the other assignments, to be left as they are."""
    return {p: p.read_bytes() for p in folder.rglob("*")
            if p.is_file() and p.relative_to(folder).parts[0] not in names}


#: What the gradebook last recorded from ``source/`` (instructor side, beside the gradebook):
#: per assignment, a digest of its source folder and one of the cells the gradebook holds.
GRADEBOOK_STAMP = "gradebook_sources.json"


def _source_digest(root: Path, assignment: str) -> str:
    h = hashlib.sha256()
    folder = root / "source" / assignment
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    config = root / "nbgrader_config.py"
    h.update(config.read_bytes() if config.is_file() else b"")
    return h.hexdigest()


def _gradebook_digest(root: Path, assignment: str) -> str:
    """A digest of every cell the gradebook holds for ``assignment`` ("" when it has none)."""
    from nbgrader.api import Gradebook, MissingEntry

    db = root / "gradebook.db"
    if not db.is_file():
        return ""
    rows: list = []
    with Gradebook(f"sqlite:///{db}") as gb:
        try:
            found = gb.find_assignment(assignment)
        except MissingEntry:
            return ""
        for nb in sorted(found.notebooks, key=lambda n: n.name):
            rows.append([nb.name, nb.kernelspec,
                         sorted([c.name, c.cell_type, c.checksum, c.locked, c.source]
                                for c in nb.source_cells),
                         sorted([c.name, c.cell_type, c.max_score] for c in nb.grade_cells),
                         sorted([c.name, c.max_score] for c in nb.task_cells),
                         sorted(c.name for c in nb.solution_cells)])
    return hashlib.sha256(json.dumps(rows, default=str).encode()).hexdigest()


def refresh_gradebook(root: Path, names: Iterable[str]) -> list[str]:
    """Record the current source notebooks in the instructor gradebook (without touching
    ``release/``), so autograde restores the right tests. An assignment whose sources and
    gradebook cells are as this function last left them is skipped (``generate_assignment``
    takes seconds). Returns the assignments it recorded."""
    stamp_file = root / GRADEBOOK_STAMP
    try:
        stamp = json.loads(stamp_file.read_text(encoding="utf-8"))
        stamp = stamp if isinstance(stamp, dict) else {}
    except (OSError, ValueError):
        stamp = {}
    done = []
    with tempfile.TemporaryDirectory() as out:
        for a in names:
            mine = {"source": _source_digest(root, a), "gradebook": _gradebook_digest(root, a)}
            if mine["gradebook"] and stamp.get(a) == mine:
                continue
            proc = nbgrader(root, "generate_assignment", a, "--force",
                            f"--CourseDirectory.release_directory={out}")
            if proc.returncode != 0:
                raise PipelineError(f"updating the gradebook for {a} failed: {last_error(proc)}")
            stamp[a] = {"source": mine["source"], "gradebook": _gradebook_digest(root, a)}
            done.append(a)
    if done:
        stamp_file.write_text(json.dumps(stamp, indent=1, sort_keys=True), encoding="utf-8")
    return done


def solution_notebook(source_nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The instructor's solution: answers filled in, hidden tests removed, not yet executed."""
    nb = nbformat.reads(nbformat.writes(source_nb), as_version=4)
    for i, cell in enumerate(nb.cells):
        where = f"cell {cell.get('id', i)}"
        cell.source = markers.without(cell.source, drop=("hidden",), where=where)
    return nb


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 120) -> nbformat.NotebookNode:
    """Run a notebook top to bottom offline (network guard on), raising on the first error."""
    # IPC, not TCP (a TCP kernel warns that it runs without encryption), with the sockets
    # in a folder of their own rather than beside the notebook.
    sockets = tempfile.mkdtemp(prefix="kernel-")
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}},
        extra_arguments=KERNEL_ARGS, record_timing=False, store_widget_state=False,
        config=Config({"KernelManager": {"transport": "ipc",
                                         "ip": os.path.join(sockets, "kernel")}}),
    )
    old = os.environ.get("MPLBACKEND")
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    try:
        client.execute()
    finally:
        if old is None:
            os.environ.pop("MPLBACKEND", None)
        shutil.rmtree(sockets, ignore_errors=True)
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


class MissingModule(PipelineError):
    """A solution notebook imports a module this environment lacks (an optional extra)."""


def build_solutions(root: Path, which: Sequence[str] | None = None, check: bool = False,
                    jobs: int = DEFAULT_JOBS, skipped: list[str] | None = None) -> list[str]:
    """Execute every solution notebook into ``solutions/`` (or check it is up to date).

    A notebook that stops on a module this environment lacks raises :class:`MissingModule`,
    one line saying what to install; with ``skipped`` (a list), it is left as it is and that
    line is appended there instead, and the other notebooks are built or checked."""
    names = select(root, which)
    paths = [p for a in names for p in sorted((root / "source" / a).glob("*.ipynb"))]

    def run(path: Path) -> tuple[Path, bytes | None]:
        target = root / "solutions" / path.parent.name / path.name
        try:
            nb = execute(solution_notebook(read_notebook(path)), path.parent)
        except CellExecutionError as exc:
            module = missing_module(exc.evalue) if exc.ename == "ModuleNotFoundError" else None
            if module is None:
                raise
            why = f"{target.relative_to(root)} not built: the notebook {install_hint(module)}"
            if skipped is None:
                raise MissingModule(why) from None
            skipped.append(why)
            return target, None
        return target, (nbformat.writes(nb) + "\n").encode()

    built = parallel(run, paths, jobs)
    expected = {t: data for t, data in built if data is not None}
    # A notebook left unbuilt keeps the file it has (neither rewritten nor removed).
    expected.update({t: t.read_bytes() for t, data in built if data is None and t.is_file()})
    if which:
        expected.update(_untouched(root / "solutions", names))
    return _sync(root / "solutions", expected, check)
