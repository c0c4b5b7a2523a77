"""Blind samples: student bugs and correct variants written from the release notebook alone.

Mutants (:mod:`.mutation`) are edits of the solution, written by people who also wrote the
tests, so a catch rate measured on them flatters the tests. A blind sample is written by
someone who read only the release notebook (and the ``course`` package a student copy
holds): never the source notebook, the solutions, the tests or the mutants. Each one is a
whole answer cell as such a student would leave it, for one or more answer cells.

``tests/blind/<assignment>.py`` holds ``BLIND = [Blind(...), ...]``. They are a measure
only (``course verify`` prints the share Validate fails and the share grading catches);
visible checks are written from the notebook's text, never from these.

A set the notebook's own author wrote, before anyone else has written one from the release
alone, says so with ``WRITTEN_BY = "author"`` beside ``BLIND``; ``course verify`` then
reports its rates as the author's own, not blind (no ``WRITTEN_BY``, or ``"blind"``, is a
set written blind).
"""

from __future__ import annotations

import copy
import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..runner import DEFAULT_JOBS, read_notebook, select

#: The least share of blind bugs a notebook's Validate must fail (issue 20's standard).
TARGET = 0.8
#: How many bugs and correct variants every notebook's set holds at least.
MIN_BUGS, MIN_CORRECT = 8, 2
#: The values of a blind file's ``WRITTEN_BY``: written from the release notebook alone,
#: or by the notebook's author (a stand-in until a blind set is written).
BLIND, AUTHOR = "blind", "author"
#: The file format, for error messages.
FORMAT = ('BLIND = [Blind(name="...", bug="what the student got wrong", '
          'cells={"<answer grade_id>": "<the whole cell>"}, correct=False), ...] '
          f'(at least {MIN_BUGS} with correct=False and {MIN_CORRECT} with correct=True; '
          f'WRITTEN_BY = "{AUTHOR}" while the set is the author\'s own)')


class BlindError(ValueError):
    """A blind sample that does not fit its release notebook."""


@dataclass(frozen=True)
class Blind:
    """One blind sample: ``cells`` maps an answer cell's ``grade_id`` to its whole source.

    ``correct=False`` is a bug (``bug`` says what the student got wrong, in the terms of
    the notebook's text); ``correct=True`` is a correct solution written another way
    (``bug`` says how it differs from the obvious one), which must score full marks.
    Answer cells not named keep the release's stub, so name every cell the notebook's
    later cells depend on.
    """

    name: str
    bug: str
    cells: Mapping[str, str] = field(default_factory=dict)
    correct: bool = False


def _grade_id(cell: nbformat.NotebookNode) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _is_answer(cell: nbformat.NotebookNode) -> bool:
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))


def answer_cells(release_nb: nbformat.NotebookNode) -> list[str]:
    """The ``grade_id`` of every answer cell of a release notebook, in order."""
    return [gid for c in release_nb.cells if _is_answer(c) and (gid := _grade_id(c))]


def blind_submission(release_nb: nbformat.NotebookNode, sample: Blind
                     ) -> nbformat.NotebookNode:
    """The release notebook with the sample's answer cells filled in."""
    known = set(answer_cells(release_nb))
    unknown = sorted(set(sample.cells) - known)
    if unknown:
        raise BlindError(f"blind sample {sample.name!r}: no answer cell {unknown} in the "
                         f"release notebook (its answer cells: {sorted(known)})")
    nb = copy.deepcopy(release_nb)
    for cell in nb.cells:
        gid = _grade_id(cell)
        if _is_answer(cell) and gid in sample.cells:
            cell.source = sample.cells[gid]
    return nb


@dataclass(frozen=True)
class BlindSet:
    """A blind file's samples, and who wrote them (:data:`BLIND` or :data:`AUTHOR`)."""

    samples: list[Blind]
    written_by: str = BLIND

    @property
    def authors_own(self) -> bool:
        return self.written_by == AUTHOR


def load_set(path: Path) -> BlindSet:
    """The ``BLIND`` list and ``WRITTEN_BY`` of a blind file (an empty set if the file does
    not exist)."""
    if not path.is_file():
        return BlindSet([])
    spec = importlib.util.spec_from_file_location(f"_blind_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = list(getattr(module, "BLIND", []))
    names = [b.name for b in found]
    if len(names) != len(set(names)):
        raise BlindError(f"{path}: blind sample names must be unique: {names}")
    written_by = getattr(module, "WRITTEN_BY", BLIND)
    if written_by not in (BLIND, AUTHOR):
        raise BlindError(f"{path}: WRITTEN_BY = {written_by!r}; it is {BLIND!r} (written from "
                         f"the release notebook alone) or {AUTHOR!r} (the author's own)")
    return BlindSet(found, written_by)


def load_blind(path: Path) -> list[Blind]:
    """The ``BLIND`` list of a blind file (empty if the file does not exist)."""
    return load_set(path).samples


def blind_file(root: Path, assignment: str) -> Path:
    return root / "tests" / "blind" / f"{assignment}.py"


def set_problems(root: Path, assignment: str) -> list[str]:
    """Why ``assignment``'s blind set falls short of :data:`MIN_BUGS` bugs and
    :data:`MIN_CORRECT` correct variants (empty when it does not), naming the file."""
    path = blind_file(root, assignment)
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    if not path.is_file():
        return [f"{assignment}: no blind set: {shown} does not exist; it holds {FORMAT}"]
    found = load_set(path)
    bugs = sum(not b.correct for b in found.samples)
    right = len(found.samples) - bugs
    if bugs >= MIN_BUGS and right >= MIN_CORRECT:
        return []
    return [f"{assignment}: {shown} has {bugs} bug(s) and {right} correct variant(s), "
            f"needs {MIN_BUGS} and {MIN_CORRECT}; it holds {FORMAT}"]


@dataclass
class BlindRate:
    """Validate and the quick grader on every blind sample of one assignment."""

    assignment: str
    samples: list[Blind]
    failures: dict[str, str]  # name -> Validate's first failure ("" when Validate passed)
    lost: dict[str, list[str]]  # name -> the graded cells it lost
    authors_own: bool = False  # the set says WRITTEN_BY = "author": not blind

    @property
    def bugs(self) -> list[Blind]:
        return [b for b in self.samples if not b.correct]

    @property
    def validate_caught(self) -> list[str]:
        return [b.name for b in self.bugs if self.failures[b.name]]

    @property
    def grading_caught(self) -> list[str]:
        return [b.name for b in self.bugs if self.lost[b.name]]

    def rate(self, caught: list[str]) -> float:
        return len(caught) / len(self.bugs) if self.bugs else 1.0

    def problems(self, target: float = TARGET) -> list[str]:
        """What falls short of the standard (empty when the notebook meets it)."""
        out = []
        if self.rate(self.validate_caught) < target:
            missed = [b.name for b in self.bugs if b.name not in self.validate_caught]
            out.append(f"Validate fails {self.rate(self.validate_caught):.0%} of the blind "
                       f"bugs, below {target:.0%}; it passes: {', '.join(missed)}")
        for b in self.bugs:
            if not self.lost[b.name]:
                out.append(f"blind bug {b.name} scores full marks in grading ({b.bug})")
        for b in self.samples:
            if b.correct and self.lost[b.name]:
                out.append(f"blind correct variant {b.name} loses {self.lost[b.name]} "
                           f"({b.bug})")
            if b.correct and self.failures[b.name]:
                out.append(f"blind correct variant {b.name} fails Validate: "
                           f"{self.failures[b.name]}")
        return out

    def line(self) -> str:
        n = len(self.bugs)
        right = [b for b in self.samples if b.correct and not self.lost[b.name]]
        kind = "the author's own bugs, not blind" if self.authors_own else "blind bugs"
        return (f"{kind}: Validate fails {len(self.validate_caught)}/{n} "
                f"({self.rate(self.validate_caught):.0%}), grading catches "
                f"{len(self.grading_caught)}/{n}; correct variants at full marks "
                f"{len(right)}/{len(self.samples) - n} {self.assignment}")


def measure(root: Path, which: Sequence[str] | None = None, jobs: int = DEFAULT_JOBS
            ) -> list[BlindRate]:
    """Every chosen assignment that has blind samples, each sample run through Validate
    and through the grader's tests (both on the quick engine, as ``course verify`` uses)."""
    from .validate import quick_validate
    from .verify import quick_grades

    plans = []
    for a in select(root, which):
        blind_set = load_set(blind_file(root, a))
        found = blind_set.samples
        if not found:
            continue
        release = sorted((root / "release" / a).glob("*.ipynb"))
        if len(release) != 1:
            raise BlindError(f"{a}: blind samples need one release notebook, found "
                             f"{len(release)}")
        nb = read_notebook(release[0])
        try:
            filled = [blind_submission(nb, b) for b in found]
        except BlindError as exc:
            raise BlindError(f"{blind_file(root, a)}: {exc}") from None
        plans.append((a, release[0].name, blind_set, filled))
    notebooks = [n for _, _, _, nbs in plans for n in nbs]
    verdicts = quick_validate(notebooks, root, jobs)
    grades = quick_grades(root, [(a, name, n) for a, name, _, nbs in plans for n in nbs], jobs)
    out, at = [], 0
    for a, _, blind_set, _ in plans:
        found = blind_set.samples
        mine = range(at, at + len(found))
        at += len(found)
        out.append(BlindRate(
            a, found,
            {b.name: ("" if verdicts[i].passed else verdicts[i].first_failure or "failed")
             for b, i in zip(found, mine, strict=True)},
            {b.name: sorted(g for g, (got, most) in grades[i].items() if got < most)
             for b, i in zip(found, mine, strict=True)},
            blind_set.authors_own))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m course.grading.proofs.blind FILE NAME OUT.ipynb``: write one blind sample's
    notebook (from the release notebook beside FILE's assignment) to run it by hand."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("file", type=Path, help="tests/blind/<assignment>.py")
    parser.add_argument("name", help="the sample's name")
    parser.add_argument("out", type=Path, help="where to write the notebook")
    args = parser.parse_args(argv)
    root = args.file.resolve().parents[2]
    assignment = args.file.stem
    found = {b.name: b for b in load_blind(args.file)}
    if args.name not in found:
        parser.error(f"no sample {args.name!r} in {args.file} (it has {sorted(found)})")
    release = sorted((root / "release" / assignment).glob("*.ipynb"))
    if len(release) != 1:
        parser.error(f"expected one notebook in release/{assignment}, found {len(release)}")
    nbformat.write(blind_submission(read_notebook(release[0]), found[args.name]), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
