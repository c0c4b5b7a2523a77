"""Mutants: seeded bugs applied to a solution, and the submissions graded from them.

A mutant names one bug from the seeds, the edit that introduces it into the
solution cell(s), and the exact set of graded cells that must catch it. The test
suite and the instructor demo grade each mutant through real ``nbgrader autograde``.
The mutants themselves live in ``tests/mutants/<assignment>.py``. A :class:`Sample` is one
submission built from the solution (full, the untouched stub, or with one mutant), as the
demo and ``course verify`` grade them.
"""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

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
        if cell_id not in answers:
            raise MutantError(f"mutant {mutant.name!r}: no answer cell with grade_id {cell_id!r}")
        hits = answers[cell_id].count(old)
        if hits != 1:
            raise MutantError(
                f"mutant {mutant.name!r}: the text to replace occurs {hits} times in cell "
                f"{cell_id!r} (it must occur exactly once): {old!r}"
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
    return mutants


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
