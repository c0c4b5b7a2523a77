"""Diagnosis by mutant signature: which seeded bug a student's lost cells look like.

Every mutant declares the exact set of graded cells it loses (its *signature*). A student
who lost the same set very likely wrote the same bug. For each submission the lost cells are
compared with every signature of that assignment by Jaccard similarity (shared cells over
all cells in either set); the best match is named when it is close enough, several when they
tie (two mutants can lose the same cells), and "no known bug" otherwise.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..proofs.mutation import Mutant, load_mutants

#: Below this similarity a signature says too little to name a bug.
MIN_SIMILARITY = 0.5
#: Where a seeded bug's description says it comes from ("seed 001 ex.3 test 2: ", "issue 32: ",
#: "lab 6 spec: "): the course's own bookkeeping, which a page for an instructor leaves out.
_PROVENANCE = re.compile(r"^(?:seed \d+\b[^:]*|issue(?: \d+)?|(?:lab \d+ )?spec):\s+", re.I)


def bug_name(mutant: Mutant) -> str:
    """A seeded bug's short name in words: its identifier with spaces for underscores."""
    return " ".join(mutant.name.replace("_", " ").split())


def bug_sentence(mutant: Mutant) -> str:
    """What a seeded bug does, in its own description's words, without the note of where
    it comes from."""
    return _PROVENANCE.sub("", " ".join(mutant.bug.split()), count=1)


@dataclass(frozen=True)
class Diagnosis:
    """What a submission's lost cells look like.

    ``bugs`` holds the names of the best-matching mutants (empty: no known bug), ``similarity``
    their score (1.0 is an exact match), ``lost`` the cells the student lost.
    """

    lost: frozenset[str]
    bugs: tuple[Mutant, ...]
    similarity: float
    everything: bool = False

    @property
    def text(self) -> str:
        if not self.lost:
            return "full marks"
        if self.everything:
            return "every autograded cell lost (nothing implemented?)"
        if not self.bugs:
            return "no known bug"
        kind = "looks like" if self.similarity == 1.0 else "closest to"
        return f"{kind} " + " or ".join(m.bug for m in self.bugs)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two cell sets (1.0 when both are empty)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def diagnose(lost: Iterable[str], mutants: Sequence[Mutant], *,
             all_cells: Iterable[str] = ()) -> Diagnosis:
    """The diagnosis for one submission that lost ``lost`` among ``all_cells``.

    A submission that lost every autograded cell is reported as such, not as a bug: an
    empty notebook matches every signature a little and none of them well.
    """
    lost_set = frozenset(lost)
    every = frozenset(all_cells)
    if not lost_set or (every and lost_set == every):
        return Diagnosis(lost_set, (), 0.0, everything=bool(lost_set))
    scored = [(similarity(lost_set, frozenset(m.loses)), m) for m in mutants]
    best = max((s for s, _ in scored), default=0.0)
    if best < MIN_SIMILARITY:
        return Diagnosis(lost_set, (), best)
    return Diagnosis(lost_set, tuple(m for s, m in scored if s == best), best)


def mutants_of(root: Path, assignment: str) -> list[Mutant]:
    """The seeded bugs of an assignment (``tests/mutants/<assignment>.py``)."""
    return load_mutants(root / "tests" / "mutants" / f"{assignment}.py")


def class_counts(diagnoses: Iterable[tuple[str, Diagnosis]]) -> Counter[tuple[str, str]]:
    """How many submissions per (assignment, diagnosis text), for the class report."""
    return Counter((assignment, d.text) for assignment, d in diagnoses if d.lost)
