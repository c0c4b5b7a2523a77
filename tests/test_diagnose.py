"""Diagnosis by mutant signature: each seeded bug is named from the cells it loses."""

from __future__ import annotations

import re

import pytest

from course.grading import runner
from course.grading.proofs.mutation import Mutant
from course.grading.results.diagnose import (
    MIN_SIMILARITY,
    bug_name,
    bug_sentence,
    class_counts,
    diagnose,
    mutants_of,
)

from . import ROOT

ASSIGNMENTS = runner.assignments(ROOT)


def _mutant(name: str, loses: set[str]) -> Mutant:
    return Mutant(name, f"bug {name}", "cell", "old", "new", loses)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_mutant_is_diagnosed_as_itself_or_its_twin(assignment):
    """Grading a mutant loses exactly its declared cells (tests/test_integrity.py proves that
    through nbgrader); from those cells alone the diagnosis must name that mutant, and name
    every other mutant with the same signature alongside it."""
    mutants = mutants_of(ROOT, assignment)
    assert mutants, f"{assignment} has no mutants"
    for m in mutants:
        d = diagnose(m.loses, mutants)
        twins = {o.name for o in mutants if frozenset(o.loses) == frozenset(m.loses)}
        assert {b.name for b in d.bugs} == twins, (assignment, m.name, d.text)
        assert d.similarity == 1.0 and d.text.startswith("looks like ")


def test_a_near_miss_is_named_as_closest_and_a_stranger_as_no_known_bug():
    a, b = _mutant("a", {"x", "y", "z"}), _mutant("b", {"q"})
    near = diagnose({"x", "y"}, [a, b])
    assert [m.name for m in near.bugs] == ["a"] and near.text == "closest to bug a"
    assert near.similarity == pytest.approx(2 / 3) and near.similarity >= MIN_SIMILARITY
    stranger = diagnose({"w"}, [a, b])
    assert stranger.bugs == () and stranger.text == "no known bug"


def test_full_marks_and_an_empty_notebook_name_no_bug():
    a = _mutant("a", {"x"})
    assert diagnose(set(), [a]).text == "full marks"
    empty = diagnose({"x", "y"}, [a], all_cells={"x", "y"})
    assert empty.bugs == () and empty.text.startswith("every autograded cell lost")


def test_class_counts_group_students_by_diagnosis():
    a = _mutant("a", {"x"})
    rows = [("lab", diagnose({"x"}, [a])), ("lab", diagnose({"x"}, [a])),
            ("lab", diagnose(set(), [a]))]
    assert class_counts(rows) == {("lab", "looks like bug a"): 2}


def test_class_report_counts_students_per_diagnosed_bug():
    from course.grading.results.model import CellScore, ClassResults, NotebookScore
    from course.grading.results.report import class_report

    def row(student, lost):
        return NotebookScore(student, "lab", "lab", [
            CellScore(g, 0 if g in lost else 2, 2, True) for g in ("x", "y", "z")])

    mutants = {"lab": [_mutant("split", {"x"}), _mutant("cap", {"y", "z"})]}
    text = class_report(ClassResults([row("ann", {"x"}), row("bob", {"x"}), row("cy", {"y", "z"}),
                                      row("dee", set())], mutants=mutants))
    assert "  2  lab: looks like bug split  (ann, bob)" in text
    assert "  1  lab: looks like bug cap  (cy)" in text
    assert "dee" not in text.split("Diagnosed bugs")[1]
    assert "Diagnosed bugs" not in class_report(ClassResults([row("ann", {"x"})]))


def test_class_report_leaves_flagged_submissions_out_of_the_diagnoses():
    """A flagged submission scores 0 until cleared; it is listed, not diagnosed as a bug
    (as the HTML report does)."""
    from course.grading.results.model import CellScore, ClassResults, NotebookScore
    from course.grading.results.report import class_report, grade_table

    def row(student, lost):
        return NotebookScore(student, "lab", "lab", [
            CellScore(g, 0 if g in lost else 2, 2, True) for g in ("x", "y")])

    mutants = {"lab": [_mutant("split", {"x"})]}
    rows = [row("ann", {"x"}), row("eve", {"x", "y"})]
    plain = class_report(ClassResults(rows, mutants=mutants))
    assert "eve" in plain.split("Diagnosed bugs")[1]
    flagged = ClassResults(rows, reviews={"eve/lab": ["builtin all replaced"]}, mutants=mutants)
    diagnosed = class_report(flagged).split("Diagnosed bugs")[1]
    assert "(ann)" in diagnosed and "eve" not in diagnosed
    assert "?? eve / lab: needs review: builtin all replaced" in grade_table(flagged)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_seeded_bug_reads_as_a_short_name_and_a_sentence(assignment):
    """What the class report shows of a bug: its name in words, and its description without
    the note of where it comes from (a seed's exercise, an issue, the notebook's spec)."""
    for m in mutants_of(ROOT, assignment):
        name, sentence = bug_name(m), bug_sentence(m)
        assert name and "_" not in name and name.replace(" ", "_") == m.name, m.name
        assert sentence and " ".join(m.bug.split()).endswith(sentence), (m.name, sentence)
        assert not re.match(r"(seed \d|issue\b|spec:|lab \d+ spec)", sentence, re.I), \
            (m.name, sentence)


def test_a_bugs_sentence_loses_only_its_source():
    def bug(text: str) -> str:
        return bug_sentence(Mutant("n", text, "c", "o", "n", set()))

    assert bug("seed 001 ex.2 test 5 / ex.3 test 4: the ledger sits outside the retry") \
        == "the ledger sits outside the retry"
    assert bug("issue 32: one  result\nper message") == "one result per message"
    assert bug("lab 6 spec: flaky counted as a pass") == "flaky counted as a pass"
    kept = "the answer read as reply.content[0].text: the first block is a thinking block"
    assert bug(kept) == kept  # a colon of its own is no source
    assert bug_name(Mutant("cache_reads_full_price", "", "c", "o", "n", set())) \
        == "cache reads full price"
