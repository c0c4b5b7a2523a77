"""Static integrity checks of the course tree (the grading checks live in :mod:`course.verify`).

* source notebooks carry no outputs or execution counts;
* nbgrader metadata is valid: unique grade ids, positive points, solution markers present;
* every graded test cell is judged in the grader: its hidden region has a record part that
  binds ``rec`` and asserts nothing, and a judge that reads only ``rec`` (:mod:`.judge`);
* no solution line and no hidden-test line appears in ``release/`` or in ``course/``, and no
  solution's code appears there in any renaming (:mod:`.shapes`);
* no instructor-only cell reaches ``release/``;
* executed solutions write nothing to stderr (nbgrader zeroes such cells);
* every cassette under ``course/cassettes`` loads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..execution import judge
from ..runner import assignments, read_notebook
from . import markers, scripts, shapes
from .markers import SOLUTION_BEGIN
from .scripts import INSTRUCTOR_TAG

# Lines this short, or made only of these, say nothing about a solution.
MIN_LEAK_CHARS = 20
_TRIVIAL = re.compile(r"^(pass|return( None)?|raise NotImplementedError\(\)|else:|try:|"
                      r"finally:|except [\w.]+( as \w+)?:|[\)\]\}]+[,:]?|\"\"\"|''')$")


@dataclass(frozen=True)
class Problem:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def _norm(line: str) -> str | None:
    norm = " ".join(line.split())
    return norm if len(norm) >= MIN_LEAK_CHARS and not _TRIVIAL.match(norm) else None


def secret_lines(nb: nbformat.NotebookNode, solutions: bool = True) -> set[str]:
    """Non-trivial lines from inside the hidden-test regions of a notebook, and (unless
    ``solutions`` is false) from inside its solution regions. A line the notebook also
    shows in the open (a visible test repeating a call, say) is not a secret."""
    regions = ("hidden", "solution") if solutions else ("hidden",)
    secret, public = set(), set()
    for n, cell in enumerate(nb.cells):
        for line in markers.split(cell.source, f"cell {cell.get('id', n)}"):
            if line.marker:
                continue
            norm = _norm(line.text)
            if norm and line.region in regions:
                secret.add(norm)
            elif norm and line.region is None:
                public.add(norm)
    return secret - public


def _where(root: Path | None, path: Path, nb: nbformat.NotebookNode, i: int, gid: str,
           line: int = 0) -> str:
    """The place to edit for a problem at ``line`` (0: the whole cell) of cell ``i``: the
    authoring script and line, with the cell's name, when the notebook was built from one."""
    cell = nb.cells[i]
    at = scripts.locate(root, nb, cell.get("id", ""), line) if root is not None else None
    if at is not None:
        return f"{at} (cell {gid!r})"
    return f"{path} cell {i} ({gid!r}{f', line {line} of the cell' if line else ''})"


def check_source(path: Path, nb: nbformat.NotebookNode, root: Path | None = None
                 ) -> list[Problem]:
    """The problems of one source notebook (``path`` as it is printed). With ``root``, a
    problem in a graded cell names the authoring script and line it was built from."""
    problems = []
    ids: dict[str, int] = {}
    has_auto = False
    for i, cell in enumerate(nb.cells):
        where = f"{path} cell {i}"
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            problems.append(Problem(where, "has outputs or an execution count; commit it clean"))
        meta = cell.metadata.get("nbgrader")
        if not meta:
            continue
        gid = meta.get("grade_id")
        if not gid:
            problems.append(Problem(where, "nbgrader cell without a grade_id"))
            continue
        if gid in ids:
            problems.append(Problem(where, f"grade_id {gid!r} repeats cell {ids[gid]}"))
        ids[gid] = i
        if meta.get("grade") and not (meta.get("points", 0) > 0):
            problems.append(Problem(where, f"graded cell {gid!r} needs positive points"))
        if meta.get("grade") and cell.cell_type == "code":
            has_auto = True
            if not meta.get("solution"):
                parts = markers.test_parts(cell.source, f"{path} cell {gid}")
                problems += [Problem(_where(root, path, nb, i, gid, line), msg)
                             for line, msg in judge.findings(parts)]
        if meta.get("solution") and cell.cell_type == "code" and SOLUTION_BEGIN not in cell.source:
            problems.append(Problem(_where(root, path, nb, i, gid),
                                    f"answer cell {gid!r} has no {SOLUTION_BEGIN} region"))
    if not has_auto:
        problems.append(Problem(str(path), "no autograded test cell"))
    return problems


def check_tree(root: Path) -> list[Problem]:
    """All static checks over ``source/``, ``release/``, ``solutions/`` and ``course/``."""
    problems: list[Problem] = []
    secrets: dict[str, str] = {}
    for a in assignments(root):
        for path in sorted((root / "source" / a).glob("*.ipynb")):
            nb = read_notebook(path)
            problems += check_source(path.relative_to(root), nb, root)
            for line in secret_lines(nb):
                secrets.setdefault(line, f"{a}/{path.name}")
            released = root / "release" / a / path.name
            if not released.is_file():
                problems.append(Problem(str(released.relative_to(root)),
                                        "missing; run `python -m course release`"))
                continue
            rel_nb = read_notebook(released)
            for i, cell in enumerate(rel_nb.cells):
                if INSTRUCTOR_TAG in cell.metadata.get("tags", []):
                    problems.append(Problem(f"{released.relative_to(root)} cell {i}",
                                            "instructor-only cell reached the release"))
            sol = root / "solutions" / a / path.name
            if sol.is_file():
                for i, cell in enumerate(read_notebook(sol).cells):
                    for out in cell.get("outputs", []):
                        if out.get("output_type") == "stream" and out.get("name") == "stderr":
                            problems.append(Problem(
                                f"{sol.relative_to(root)} cell {i}",
                                "writes to stderr; nbgrader gives such a graded cell 0"))
    from ...cassette import Cassette, CassetteError  # it imports the SDK: only for this check

    for path in sorted((root / "course" / "cassettes").glob("*.json")):
        try:
            Cassette.load(path)
        except CassetteError as exc:
            problems.append(Problem(str(path.relative_to(root)), str(exc).split(": ", 1)[-1]))
    for solution, seen in shapes.leaks(root):
        problems.append(Problem(
            f"{seen.where} lines {seen.first_line}-{seen.last_line}",
            f"has the shape of {solution.where} lines {solution.first_line}-"
            f"{solution.last_line} (a solution, renamed or not): students can read it here"))
    exposed = [p for p in sorted((root / "release").rglob("*")) if p.is_file()]
    exposed += sorted(p for p in (root / "course").rglob("*")
                      if p.is_file() and p.suffix in (".py", ".json", ".md", ".txt"))
    for path in exposed:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".ipynb":
            text = "\n".join(c.source for c in read_notebook(path).cells)
        for line in {" ".join(x.split()) for x in text.split("\n")}:
            if line in secrets:
                problems.append(Problem(str(path.relative_to(root)),
                                        f"reveals a line of {secrets[line]}: {line!r}"))
    return problems
