"""Build nbgrader master notebooks from plain-text percent scripts.

Notebooks are source code, so they are written as text (``authoring/<assignment>/<name>.py``)
and converted to ``source/<assignment>/<name>.ipynb`` with the nbgrader metadata filled
in. A cell starts with a header line::

    # %%                                           plain code
    # %% [markdown]                                prose; lines carry a leading "# "
    # %% id="agent" kind="solution"                the student's answer cell
    # %% id="two_step_trace" kind="tests" points=2 an autograder test cell
    # %% [markdown] id="why_one_message" kind="manual" points=3
    #                                              a written answer, graded by hand
    # %% [markdown] kind="readonly"                locked context (e.g. a question's prompt)
    # %% [markdown] kind="instructor"              in source and solutions, never released

A tests cell's hidden region holds a record part, a ``### JUDGE`` line and the judge (see
:mod:`.judge`): the record part runs in the student's kernel, the judge in the grader.

Header values are JSON, as in jupytext's percent format (strings quoted, numbers bare), so
jupytext and JupyterLab open the scripts as notebooks with the same cells and metadata.
Grading metadata lives only in the header, so nobody edits nbgrader JSON by hand.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import markers

KINDS = ("code", "solution", "tests", "manual", "readonly", "instructor")
INSTRUCTOR_TAG = "instructor"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
_HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?P<rest>.*)$")
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_PAIR = re.compile(r'\s*([A-Za-z_]\w*)=("(?:[^"\\]|\\.)*"|[^\s"]+)')
KEYS = ("id", "kind", "points")


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
        for key, value in _pairs(m.group("rest"), f"{source}:{n}").items():
            setattr(spec, key, value)
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


def _pairs(rest: str, where: str) -> dict[str, object]:
    """The ``key=value`` pairs of a header, each value checked for its key."""
    out: dict[str, object] = {}
    pos = 0
    rest = rest.rstrip()
    while pos < len(rest):
        m = _PAIR.match(rest, pos)
        if not m:
            raise AuthoringError(f"{where}: expected key=value pairs, got {rest[pos:].strip()!r}")
        key, raw = m.groups()
        pos = m.end()
        if key not in KEYS:
            raise AuthoringError(f"{where}: unknown header key {key!r}; known: {KEYS}")
        if key in out:
            raise AuthoringError(f"{where}: {key}= given twice")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            raise AuthoringError(f"{where}: {key}={raw} is not a JSON value; quote strings "
                                 f'as {key}="{raw}"') from None
        if key == "points":
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not math.isfinite(value) or value <= 0:
                raise AuthoringError(f"{where}: points={raw} must be a finite positive number")
            value = float(value)
        elif not isinstance(value, str):
            raise AuthoringError(f'{where}: {key}={raw} must be a quoted string, e.g. {key}="x"')
        elif key == "id" and not _ID.match(value):
            raise AuthoringError(f"{where}: id {value!r} must match {_ID.pattern}")
        elif key == "kind" and value not in KINDS:
            raise AuthoringError(f"{where}: kind {value!r} is not one of {KINDS}")
        out[key] = value
    return out


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


def _body_lines(spec: CellSpec) -> tuple[int, list[str]]:
    """The lines of the cell's generated source, and how many blank lines before them the
    script has under the header (so line ``k`` of the source is script line
    ``spec.line_no + skipped + k``)."""
    lines = list(spec.lines)
    if spec.markdown:
        lines = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines]
    while lines and not lines[-1].strip():
        lines.pop()
    skipped = 0
    while lines and not lines[0].strip():
        lines.pop(0)
        skipped += 1
    return skipped, lines


def _body(spec: CellSpec) -> str:
    return "\n".join(_body_lines(spec)[1])


def script_line(spec: CellSpec, line: int = 0) -> int:
    """The script line that holds line ``line`` (1-based) of the cell's generated source;
    ``0`` gives the cell's ``# %%`` header."""
    return spec.line_no + _body_lines(spec)[0] + line if line > 0 else spec.line_no


def locate(root: Path, nb: nbformat.NotebookNode, cell_id: str, line: int = 0) -> str | None:
    """Where to edit line ``line`` of the generated cell ``cell_id`` of ``nb``:
    ``"authoring/<a>/<a>.py:LINE"`` (relative to ``root``), or None when ``nb`` does not say
    which script it was built from, or that script no longer has the cell."""
    source = nb.get("metadata", {}).get("course", {}).get("generated_from")
    if not isinstance(source, str):
        return None
    try:
        cells = parse((root / source).read_text(encoding="utf-8"), source)
    except (OSError, UnicodeError, AuthoringError):
        return None
    for n, spec in enumerate(cells):
        if (spec.id or f"cell-{n:03d}") == cell_id:
            return f"{source}:{script_line(spec, line)}"
    return None


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


def _check_regions(spec: CellSpec, body: str, source: str, cell_id: str) -> None:
    """Refuse a cell whose ``### BEGIN/END`` regions or ``### JUDGE`` line nbgrader or the
    grader would reject, naming the script line to edit (not the generated cell's)."""
    try:
        if spec.kind == "tests":
            markers.test_parts(body)
        else:
            markers.split(body)
    except markers.MarkerError as exc:
        raise AuthoringError(f"{source}:{script_line(spec, exc.line)} (cell {cell_id!r}): "
                             f"{exc.reason}") from None


def build(text: str, source: str = "<script>") -> nbformat.NotebookNode:
    """The nbgrader master notebook for a percent script (``source`` names it, and is
    recorded in the notebook's metadata as the file that generated it)."""
    cells = []
    for n, spec in enumerate(parse(text, source)):
        body = _body(spec)
        cell_id = spec.id or f"cell-{n:03d}"
        _check_regions(spec, body, source, cell_id)
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
    if source != "<script>":
        nb.metadata["course"] = {"generated_from": source}
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
