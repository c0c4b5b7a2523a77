"""The Validate catch rate is measured, and it can fail.

``course.grading.validate`` runs real ``nbgrader validate`` on release notebooks filled with
mutated solutions. These tests run it on two Lab 1 mutants, then on a damaged copy of the
release whose visible assertion for one of them was removed: the rate must drop.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from course.grading import validate
from course.grading.mutation import load_mutants

from . import ROOT

LAB = "lab01_tool_loop"
PICKED = ("split_results", "no_step_cap")


@pytest.fixture(scope="module")
def mutants():
    found = {m.name: m for m in load_mutants(ROOT / "tests" / "mutants" / f"{LAB}.py")}
    return [found[n] for n in PICKED]


def test_parse_reads_success_failure_and_warnings():
    ok = validate.parse("Success! Your notebook passes all the tests.\n", "")
    assert ok.passed and ok.warnings == ()
    bad = validate.parse(
        "VALIDATION FAILED ON 1 CELL(S)!\nThe following cell failed:\n    agent(...)\n"
        "The error was:\n    AssertionError: tool results split across 3 user messages\n",
        "[ValidateApp | WARNING] Cell output is 'x', which cannot be converted to a float\n")
    assert not bad.passed
    assert bad.first_failure.startswith("AssertionError: tool results split")
    assert len(bad.warnings) == 1


def test_rate_arithmetic_and_target():
    quiet = validate.Outcome(True, (), "")
    caught = validate.Outcome(False, (), "AssertionError: x")
    rate = validate.CatchRate("demo", quiet, {"a": caught, "b": caught, "c": caught,
                                              "d": caught, "e": quiet})
    assert rate.rate == 0.8 and rate.problems() == []
    assert rate.line() == "Validate catch rate: 4/5 (80%) demo"
    rate.mutants["f"] = quiet
    assert any("below 80%" in p for p in rate.problems())
    noisy = validate.CatchRate("demo", validate.Outcome(True, ("WARNING x",), ""), {})
    assert noisy.problems() == ["Validate warns on the solution: WARNING x"]


@pytest.mark.slow
def test_catch_rate_on_the_release(mutants):
    rate = validate.catch_rate(ROOT, LAB, jobs=2, mutants=mutants)
    assert rate.solution.passed and rate.solution.warnings == (), rate.solution
    assert rate.caught == list(PICKED), {n: o.first_failure for n, o in rate.mutants.items()}


@pytest.mark.slow
def test_catch_rate_drops_when_a_visible_assertion_is_removed(mutants, tmp_path):
    damaged = tmp_path / LAB
    shutil.copytree(ROOT / "release" / LAB, damaged)
    path = damaged / f"{LAB}.ipynb"
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "parallel_results_one_message")
    cell.source = cell.source.split("assert len(carriers) == 1")[0]
    cell.metadata.nbgrader.checksum = compute_checksum(cell)  # as if released this way
    nbformat.write(nb, path)
    rate = validate.catch_rate(ROOT, LAB, jobs=2, mutants=mutants, release_dir=damaged)
    assert rate.missed == ["split_results"]
    assert rate.rate == 0.5
    assert any("below 80%" in p for p in rate.problems())


@pytest.mark.slow
def test_student_validate_is_quiet_without_the_instructor_side(tmp_path):
    """The student copy's config works without course/grading/ and prints no warning."""
    assert "course.grading" not in validate.STUDENT_CONFIG
    stub = nbformat.read(ROOT / "release" / LAB / f"{LAB}.ipynb", as_version=4)
    outcome = validate.run_validate(stub, ROOT, f"{LAB}.ipynb")
    assert not outcome.passed, "the untouched stub must fail Validate"
    assert outcome.warnings == (), outcome.warnings


@pytest.mark.slow
@pytest.mark.parametrize("assignment", validate.select(ROOT, None))
def test_every_notebook_meets_the_validate_catch_rate(assignment):
    """The student's own Validate button fails on at least 80% of the seeded bugs of every
    notebook, and passes the solution without a warning (real nbgrader validate)."""
    rate = validate.catch_rate(ROOT, assignment, jobs=2)
    assert rate.mutants, f"{assignment} has no mutants to measure"
    assert not rate.problems(), f"{rate.line()}: " + "; ".join(rate.problems())
