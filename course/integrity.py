"""Static integrity checks of the course tree (the grading checks live in :mod:`course.verify`).

* source notebooks carry no outputs or execution counts;
* nbgrader metadata is valid: unique grade ids, positive points, solution markers present;
* no solution line and no hidden-test line appears in ``release/`` or in ``course/``;
* no instructor-only cell reaches ``release/``;
* executed solutions write nothing to stderr (nbgrader zeroes such cells).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .authoring import INSTRUCTOR_TAG
from .mutation import SOLUTION_BEGIN, SOLUTION_END
from .pipeline import HIDDEN_BEGIN, HIDDEN_END, assignments, read_notebook

# Lines this short, or made only of these, say nothing about a solution.
MIN_LEAK_CHARS = 20
_TRIVIAL = re.compile(r"^(pass|return( None)?|raise NotImplementedError\(\)|else:|try:|"
                      r"finally:|[\)\]\}]+[,:]?|\"\"\"|''')$")


@dataclass(frozen=True)
class Problem:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def _regions(source: str, begin: str, end: str) -> Iterator[str]:
    inside = False
    for line in source.split("\n"):
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif inside:
            yield line


def secret_lines(nb: nbformat.NotebookNode) -> set[str]:
    """Non-trivial lines from inside the solution and hidden-test regions of a notebook."""
    out = set()
    for cell in nb.cells:
        for begin, end in ((SOLUTION_BEGIN, SOLUTION_END), (HIDDEN_BEGIN, HIDDEN_END)):
            for line in _regions(cell.source, begin, end):
                norm = " ".join(line.split())
                if len(norm) >= MIN_LEAK_CHARS and not _TRIVIAL.match(norm):
                    out.add(norm)
    return out


def check_source(path: Path, nb: nbformat.NotebookNode) -> list[Problem]:
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
        if meta.get("solution") and cell.cell_type == "code" and SOLUTION_BEGIN not in cell.source:
            problems.append(Problem(where, f"answer cell {gid!r} has no {SOLUTION_BEGIN} region"))
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
            problems += check_source(path.relative_to(root), nb)
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
