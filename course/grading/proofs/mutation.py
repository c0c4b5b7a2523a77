"""Mutants: seeded bugs applied to a solution, and the submissions graded from them.

A mutant names one bug from the seeds, the edit that introduces it into the
solution cell(s), and the exact set of graded cells that must catch it. The test
suite and the instructor demo grade each mutant through real ``nbgrader autograde``.
The mutants themselves live in ``tests/mutants/<assignment>.py``. A :class:`Sample` is one
submission built from the solution (full, the untouched stub, or with one mutant), as the
demo and ``course verify`` grade them.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib.util
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .. import syntax
from ..authoring.markers import answer_text
from ..runner import read_notebook


class MutantError(ValueError):
    """A mutant whose edit does not apply to the current solution."""


@dataclass(frozen=True)
class Mutant:
    """One seeded bug: ``old`` becomes ``new`` inside the solution cell ``cell``."""

    name: str
    bug: str
    cell: str
    old: str
    new: str
    loses: frozenset[str] | set[str]
    patches: tuple[tuple[str, str, str], ...] = field(default=())
    #: Where it is written (``tests/mutants/<a>.py:LINE``), for errors; set by
    #: :func:`load_mutants`.
    where: str = field(default="", compare=False)

    def edits(self) -> list[tuple[str, str, str]]:
        return [(self.cell, self.old, self.new), *self.patches]


def _grade_id(cell: nbformat.NotebookNode) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def submission(
    release_nb: nbformat.NotebookNode,
    source_nb: nbformat.NotebookNode,
    mutant: Mutant | None = None,
    *,
    answer: bool = True,
) -> nbformat.NotebookNode:
    """A student notebook: the release with every answer cell filled from the source.

    With ``answer=False`` the release is returned untouched (the stub submission).
    With a mutant, its edits are applied to the answers first.
    """
    nb = copy.deepcopy(release_nb)
    if not answer:
        return nb
    answers = {
        _grade_id(c): answer_text(c.source, f"answer cell {_grade_id(c)}")
        for c in source_nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }
    for cell_id, old, new in (mutant.edits() if mutant else []):
        assert mutant is not None
        named = f"{mutant.where}: mutant {mutant.name!r}" if mutant.where \
            else f"mutant {mutant.name!r}"
        if cell_id not in answers:
            raise MutantError(f"{named}: no answer cell with grade_id {cell_id!r} (the "
                              f"answer cells: {sorted(k for k in answers if k)})")
        hits = answers[cell_id].count(old)
        if hits != 1:
            raise MutantError(
                f"{named}: the text to replace occurs {hits} times in cell "
                f"{cell_id!r} (it must occur exactly once, as the cell reads with the "
                f"solution markers dropped): {old!r}"
            )
        answers[cell_id] = answers[cell_id].replace(old, new)
    for cell in nb.cells:
        gid = _grade_id(cell)
        if gid in answers and cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            cell.source = answers[gid]
    return nb


def load_mutants(path: Path) -> list[Mutant]:
    """The ``MUTANTS`` list of a mutants file (empty if the file does not exist)."""
    if not path.is_file():
        return []
    spec = importlib.util.spec_from_file_location(f"_mutants_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    mutants = list(getattr(module, "MUTANTS", []))
    names = [m.name for m in mutants]
    if len(names) != len(set(names)):
        raise MutantError(f"{path}: mutant names must be unique: {names}")
    shown = _shown(path)
    lines = _lines(path)
    return [m if m.where else dataclasses.replace(
        m, where=f"{shown}:{lines[m.name]}" if m.name in lines else shown) for m in mutants]


def _shown(path: Path) -> str:
    """``path`` as a person types it: relative to the working folder when it is inside."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _lines(path: Path) -> dict[str, int]:
    """The line of every ``Mutant(name="...", ...)`` call in a mutants file, by name."""
    try:
        tree = syntax.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeError):
        return {}
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Mutant":
            first = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "name"), None)
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                out.setdefault(first.value, node.lineno)
    return out


def check_edits(root: Path, assignment: str, mutants: Iterable[Mutant]) -> None:
    """Apply every mutant's edits to the assignment's source answers, raising
    :class:`MutantError` for the first that does not apply: seconds, before anything is
    generated or graded."""
    for path in sorted((root / "source" / assignment).glob("*.ipynb")):
        nb = read_notebook(path)
        for m in mutants:
            submission(nb, nb, m)


# -- sample submissions (the demo and course verify) -----------------------------------


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
