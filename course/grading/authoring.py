"""Build nbgrader master notebooks from plain-text percent scripts.

Notebooks are source code, so they are written as text (``authoring/<assignment>/<name>.py``)
and converted to ``source/<assignment>/<name>.ipynb`` with the nbgrader metadata filled
in. A cell starts with a header line::

    # %%                                       plain code
    # %% [markdown]                            prose; lines carry a leading "# "
    # %% id=agent kind=solution                the student's answer cell (autograded answer)
    # %% id=two_step_trace kind=tests points=2 an autograder test cell
    # %% [markdown] id=why_one_message kind=manual points=3
    #                                          a written answer, graded by hand
    # %% [markdown] kind=readonly              locked context (e.g. a question's prompt)
    # %% [markdown] kind=instructor            in source and solutions, never released

Grading metadata lives only in the header, so nobody edits nbgrader JSON by hand.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

KINDS = ("code", "solution", "tests", "manual", "readonly", "instructor")
INSTRUCTOR_TAG = "instructor"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?P<rest>.*)$")
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class AuthoringError(ValueError):
    """A percent script that cannot become a valid nbgrader notebook."""


@dataclass
class CellSpec:
    markdown: bool
    kind: str = "code"
    id: str | None = None
    points: float | None = None
    lines: list[str] = field(default_factory=list)
    line_no: int = 0


def parse(text: str, source: str = "<script>") -> list[CellSpec]:
    """Split a percent script into cell specs, checking every header."""
    cells: list[CellSpec] = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _HEADER.match(line)
        if not m:
            if not cells:
                if line.strip():
                    raise AuthoringError(f"{source}:{n}: text before the first '# %%' header")
                continue
            cells[-1].lines.append(line)
            continue
        spec = CellSpec(markdown=bool(m.group("md")), line_no=n)
        for token in shlex.split(m.group("rest")):
            key, sep, value = token.partition("=")
            if not sep:
                raise AuthoringError(f"{source}:{n}: expected key=value, got {token!r}")
            if key == "id":
                if not _ID.match(value):
                    raise AuthoringError(f"{source}:{n}: id {value!r} must match {_ID.pattern}")
                spec.id = value
            elif key == "kind":
                if value not in KINDS:
                    raise AuthoringError(f"{source}:{n}: kind {value!r} is not one of {KINDS}")
                spec.kind = value
            elif key == "points":
                spec.points = float(value)
            else:
                raise AuthoringError(f"{source}:{n}: unknown header key {key!r}")
        _check(spec, source)
        cells.append(spec)
    seen: dict[str, int] = {}
    for c in cells:
        if c.id is not None:
            if c.id in seen:
                raise AuthoringError(
                    f"{source}:{c.line_no}: id {c.id!r} already used at line {seen[c.id]}")
            seen[c.id] = c.line_no
    return cells


def _check(spec: CellSpec, source: str) -> None:
    where = f"{source}:{spec.line_no}"
    graded = spec.kind in ("solution", "tests", "manual", "readonly")
    if graded and spec.id is None:
        raise AuthoringError(f"{where}: a {spec.kind} cell needs an id=")
    if spec.kind in ("tests", "manual") and not (spec.points and spec.points > 0):
        raise AuthoringError(f"{where}: a {spec.kind} cell needs positive points=")
    if spec.kind not in ("tests", "manual") and spec.points is not None:
        raise AuthoringError(f"{where}: only tests and manual cells carry points")
    if spec.kind == "manual" and not spec.markdown:
        raise AuthoringError(f"{where}: a manual answer is a markdown cell")
    if spec.kind in ("solution", "tests") and spec.markdown:
        raise AuthoringError(f"{where}: a {spec.kind} cell is a code cell")


def _body(spec: CellSpec) -> str:
    lines = list(spec.lines)
    if spec.markdown:
        lines = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


def _nbgrader(spec: CellSpec) -> dict | None:
    base = {"grade": False, "grade_id": spec.id, "locked": False, "schema_version": 3,
            "solution": False, "task": False}
    if spec.kind == "solution":
        return dict(base, solution=True)
    if spec.kind == "tests":
        return dict(base, grade=True, locked=True, points=_num(spec.points))
    if spec.kind == "manual":
        return dict(base, grade=True, solution=True, points=_num(spec.points))
    if spec.kind == "readonly":
        return dict(base, locked=True)
    return None


def _num(points: float | None) -> float | int:
    assert points is not None
    return int(points) if float(points).is_integer() else points


def build(text: str, source: str = "<script>") -> nbformat.NotebookNode:
    """The nbgrader master notebook for a percent script."""
    cells = []
    for n, spec in enumerate(parse(text, source)):
        body = _body(spec)
        cell_id = spec.id or f"cell-{n:03d}"
        if spec.markdown:
            cell = nbformat.v4.new_markdown_cell(body, id=cell_id)
        else:
            cell = nbformat.v4.new_code_cell(body, id=cell_id)
        meta = _nbgrader(spec)
        if meta is not None:
            cell.metadata["nbgrader"] = meta
        if spec.kind == "instructor":
            cell.metadata["tags"] = [INSTRUCTOR_TAG]
        cells.append(cell)
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    nbformat.validate(nb)
    return nb


def dumps(nb: nbformat.NotebookNode) -> str:
    """Serialise exactly as nbformat writes files, with a trailing newline."""
    return nbformat.writes(nb) + "\n"


def build_all(root: Path) -> dict[Path, str]:
    """Every source notebook's text, keyed by its path under ``root``."""
    out: dict[Path, str] = {}
    for script in sorted((root / "authoring").glob("*/*.py")):
        target = root / "source" / script.parent.name / f"{script.stem}.ipynb"
        rel = script.relative_to(root)
        out[target] = dumps(build(script.read_text(encoding="utf-8"), str(rel)))
    return out
