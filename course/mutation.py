"""Mutants: seeded bugs applied to a solution, and the submissions graded from them.

A mutant names one bug from the seeds, the edit that introduces it into the
solution cell(s), and the exact set of graded cells that must catch it. The test
suite and the instructor demo grade each mutant through real ``nbgrader autograde``.
The mutants themselves live in ``tests/mutants/<assignment>.py`` (never in this
package, which students can read).
"""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

SOLUTION_BEGIN = "### BEGIN SOLUTION"
SOLUTION_END = "### END SOLUTION"


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


def answer_text(source: str) -> str:
    """What a student who wrote the solution would have in the cell: the markers dropped."""
    lines = [ln for ln in source.split("\n")
             if ln.strip() not in (SOLUTION_BEGIN, SOLUTION_END)]
    return "\n".join(lines)


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
        _grade_id(c): answer_text(c.source)
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
