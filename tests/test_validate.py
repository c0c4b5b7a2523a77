"""The Validate catch rate is measured, and it can fail.

``course.grading.proofs.validate`` runs Validate on release notebooks filled with mutated
solutions, by default through the quick engine. These tests measure every notebook in one
batch, then a damaged copy of Lab 1's release whose visible assertion for one mutant was
removed: the rate must drop. The quick engine is checked against real ``nbgrader validate``
and against each of nbgrader's scoring rules.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbgrader.utils import compute_checksum

from course.grading.execution import quickrun
from course.grading.proofs import validate
from course.grading.proofs.mutation import Mutant, load_mutants

from . import ROOT

LAB = "lab01_tool_loop"
PICKED = ("split_results", "no_step_cap")


@pytest.fixture(scope="session")
def rates() -> dict[str, validate.CatchRate]:
    """Every notebook's catch rate, from one batch of quick runs (one worker start)."""
    return {r.assignment: r for r in validate.catch_rates(ROOT, jobs=2)}


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


def test_batched_catch_rates_give_each_assignment_its_own_outcomes(monkeypatch):
    """One batch for many assignments: each outcome returns to the run it came from."""
    def echo(root, runs, notebooks, jobs, engine):
        return [validate.Outcome(name == "solution", (), f"{path.parent.name}/{name}")
                for name, path, _ in runs]

    monkeypatch.setattr(validate, "_validate_all", echo)
    which = ["lab01_tool_loop", "lab04_loop_detector", "lab09_trajectory"]
    got = validate.catch_rates(ROOT, which)
    assert [r.assignment for r in got] == which
    for rate in got:
        assert rate.solution.passed and rate.mutants
        for name, outcome in rate.mutants.items():
            assert outcome.first_failure == f"{rate.assignment}/{name}"


@pytest.mark.slow
def test_catch_rate_on_the_release(rates):
    rate = rates[LAB]
    assert rate.solution.passed and rate.solution.warnings == (), rate.solution
    assert set(PICKED) <= set(rate.caught), {n: rate.mutants[n].first_failure for n in PICKED}


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
def test_every_notebook_meets_the_validate_catch_rate(rates, assignment):
    """The student's own Validate button fails on at least 80% of the seeded bugs of every
    notebook, and passes the solution without a warning."""
    rate = rates[assignment]
    assert rate.mutants, f"{assignment} has no mutants to measure"
    assert set(rate.mutants) == {m.name for m in load_mutants(
        ROOT / "tests" / "mutants" / f"{assignment}.py")}
    assert not rate.problems(), f"{rate.line()}: " + "; ".join(rate.problems())


# -- the quick engine: agrees with nbgrader, and each of its rules can fail ----------------


def _notebook(*cells: tuple[str, str]) -> nbformat.NotebookNode:
    """A notebook of code cells; a cell with a grade id is a 1-point graded test cell."""
    nb = nbformat.v4.new_notebook()
    for gid, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        if gid:
            cell.metadata["nbgrader"] = {"grade": True, "grade_id": gid, "points": 1,
                                         "locked": True, "solution": False}
        nb.cells.append(cell)
    return nb


@pytest.mark.slow  # sleeps through three cell time limits
def test_quick_engine_scores_cells_by_nbgraders_rule():
    """One worker, one child per notebook: each way a cell can fail or warn, and a crash."""
    fine = _notebook(("", "x = 2"), ("ok", "assert x == 2"))
    cases = {
        "error": _notebook(("", "x = 2"), ("bad", "assert x == 3, 'x is not 3 here'"),
                           ("later", "assert x == 2")),
        "stderr": _notebook(("noisy", "import sys; sys.stderr.write('careful\\n')")),
        "partial": _notebook(("half", "0.5")),
        "words": _notebook(("talky", "'all good'")),
        "timeout": _notebook(("spin", "while True: pass"), ("after", "assert True")),
        "swallow": _notebook(("spin2", "import time\ntry:\n    time.sleep(5)\n"
                                       "except BaseException:\n    pass")),
        "stuck": _notebook(("stuck", "import time\nwhile True:\n    try:\n"
                                     "        time.sleep(5)\n    except BaseException:\n"
                                     "        pass")),
        "crash": _notebook(("gone", "import os; os._exit(3)")),
        "miss": _notebook(("miss", "from course.cassette import ReplayMiss\n"
                                   "try:\n    raise ReplayMiss('no such interaction')\n"
                                   "except Exception:\n    pass")),
        "state": fine,  # the child before it crashed must not leak into this one
    }
    runs = dict(zip(["fine", *cases], quickrun.run_variants([fine, *cases.values()], ROOT,
                                                            cell_timeout=1), strict=True))
    got = {name: {(c.grade_id, c.passed) for c in cells if c.grade_id}
           for name, cells in runs.items()}
    assert got["fine"] == got["state"] == {("ok", True)}
    assert got["error"] == {("bad", False), ("later", True)}, "errors do not stop the run"
    assert [c.passed for c in runs["error"]] == [True, False, True]
    assert runs["error"][1].error == "AssertionError: x is not 3 here"
    assert got["stderr"] == {("noisy", False)} and runs["stderr"][0].error == "careful"
    assert got["partial"] == {("half", False)} and not runs["partial"][0].warning
    assert got["words"] == {("talky", True)}
    assert "cannot be converted to a float" in runs["words"][0].warning
    assert got["timeout"] == {("spin", False), ("after", True)}
    assert runs["timeout"][0].error.startswith("CellTimeoutError")
    assert got["swallow"] == {("spin2", False)}, "a timeout cannot be swallowed"
    assert got["stuck"] == {("stuck", False)} and "would not stop" in runs["stuck"][0].error
    assert got["crash"] == {("gone", False)} and "died" in runs["crash"][0].error
    assert got["miss"] == {("miss", False)}, "a replay miss escapes except Exception"


#: Lab 1 mutants that fail Validate each a different way (an assertion, the API's 400, an
#: escaped exception); bench/validate_engines.py compares every mutant.
AGREE = ("split_results", "text_only_history", "tool_exception_escapes")
#: Validate now fails every seeded Lab 1 bug, so the one it must pass is an edit that
#: changes nothing a test can see: both engines must say "passed" for it.
HARMLESS = Mutant("harmless_comment", "a comment added to the signature line", "agent",
                  "def agent(goal, tools, dispatch, *, client, max_steps=12):",
                  "def agent(goal, tools, dispatch, *, client, max_steps=12):  # the loop",
                  set())


@pytest.mark.slow
def test_quick_engine_agrees_with_nbgrader_validate():
    """Both engines on Lab 1's solution, three bugs and one harmless edit: the same verdicts,
    the same error."""
    found = {m.name: m for m in load_mutants(ROOT / "tests" / "mutants" / f"{LAB}.py")}
    chosen = [found[n] for n in AGREE] + [HARMLESS]
    quick = validate.catch_rate(ROOT, LAB, jobs=2, mutants=chosen, engine="quick")
    real = validate.catch_rate(ROOT, LAB, jobs=2, mutants=chosen, engine="nbgrader")
    assert sorted(real.caught) == sorted(AGREE), "the chosen mutants no longer differ"
    assert quick.solution == real.solution
    assert {n: o.passed for n, o in quick.mutants.items()} == \
        {n: o.passed for n, o in real.mutants.items()}
    for name, outcome in real.mutants.items():
        assert quick.mutants[name].first_failure[:60] == outcome.first_failure[:60], name
