"""Hostile submissions: each gets a clear outcome, the grader goes on, and no grade is lost.

One scratch course, Lab 1 released, and a class of broken submissions: malformed JSON,
deleted cells, an infinite loop, a kernel that dies, a network call, a duplicated graded
cell. A good student graded first keeps their grade; a good student graded after the
wreckage gets full marks.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest

from course.grading import runner
from course.grading.authoring import build
from course.grading.execution import grade
from course.grading.proofs.mutation import submission
from course.grading.results import model

from . import ROOT

pytestmark = pytest.mark.slow  # starts kernels and nbgrader processes

LAB = "lab01_tool_loop"
NB = f"{LAB}.ipynb"


def _answer_cell(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "agent")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path_factory.mktemp("hostile"))
    # A short per-cell limit keeps the infinite-loop case quick (Lab 1's cells take ~1 s).
    with open(course / runner.CONFIG_FILE, "a") as f:
        f.write("\nc.Execute.timeout = 10\n")
    build.generate(course, LAB)
    release = runner.read_notebook(course / "release" / LAB / NB)
    source = runner.read_notebook(course / "source" / LAB / NB)
    good = submission(release, source)

    def put(student, nb_or_text):
        target = course / "submitted" / student / LAB / NB
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(nb_or_text, str):
            target.write_text(nb_or_text)
        else:
            nbformat.write(nb_or_text, target)

    put("early_good", good)
    first = grade.autograde(course, [("early_good", LAB)])

    put("malformed_json", '{"cells": [ this is not json')
    deleted = nbformat.from_dict(good)
    deleted.cells = [c for c in deleted.cells
                     if c.metadata.get("nbgrader", {}).get("grade_id") != "step_cap"]
    put("deleted_cells", deleted)

    def with_answer(code):
        nb = nbformat.from_dict(release)
        _answer_cell(nb).source = code
        return nb

    # The loop runs when the answer cell runs: one time-out, then every test fails at once
    # (a loop inside agent() would cost a time-out per test cell that calls it).
    put("infinite_loop", with_answer("while True:\n    pass\n"))
    put("kernel_dies", with_answer("import os\nos._exit(1)\n"))
    put("network_call", with_answer(
        "import socket\nsocket.create_connection(('93.184.216.34', 80), timeout=2)\n"))
    dup = nbformat.from_dict(good)
    graded_cell = next(c for c in dup.cells if c.metadata.get("nbgrader", {}).get("grade"))
    twin = nbformat.from_dict(graded_cell)
    twin.id = "twin-of-a-graded-cell"  # same grade_id, distinct cell id
    dup.cells.append(twin)
    put("duplicate_cell", dup)
    put("late_good", good)

    rest = [(s, LAB) for s in ("malformed_json", "deleted_cells", "infinite_loop", "kernel_dies",
                               "network_call", "duplicate_cell", "late_good")]
    runs = {r.student: r for r in first + grade.autograde(course, rest, jobs=2)}
    table = {r.student: r for r in model.scores(course)}
    yield course, runs, table
    shutil.rmtree(course, ignore_errors=True)


def test_good_students_get_full_marks_before_and_after(graded):
    _, runs, table = graded
    for student in ("early_good", "late_good"):
        assert runs[student].ok, runs[student].error
        assert table[student].auto_score == table[student].auto_max == 14


def test_malformed_notebook_fails_alone_with_a_message(graded):
    _, runs, table = graded
    assert not runs["malformed_json"].ok
    assert runs["malformed_json"].error  # a one-line reason for the instructor
    assert table.get("malformed_json") is None or table["malformed_json"].auto_score == 0


def test_deleted_test_cell_scores_zero_and_the_rest_is_graded(graded):
    _, runs, table = graded
    # A deleted test cell cannot be passed: it scores 0, and every other cell is graded.
    assert runs["deleted_cells"].ok, runs["deleted_cells"].error
    got = {c.grade_id: c.score for c in table["deleted_cells"].cells if c.auto}
    assert got["step_cap"] == 0
    assert table["deleted_cells"].auto_score == 12


def test_infinite_loop_times_out_and_scores_zero(graded):
    _, runs, table = graded
    assert table["infinite_loop"].auto_score == 0


def test_dying_kernel_costs_only_that_submission(graded):
    _, runs, table = graded
    row = table.get("kernel_dies")
    assert row is None or row.auto_score == 0


def test_network_call_is_refused_inside_the_grading_kernel(graded):
    course, _, table = graded
    assert table["network_call"].auto_score == 0
    out = (course / "autograded" / "network_call" / LAB / NB).read_text()
    assert "NetworkBlocked" in out and "is blocked: this course grades and tests offline" in out


def test_duplicated_graded_cell_fails_only_that_student(graded):
    _, runs, _ = graded
    assert not runs["duplicate_cell"].ok
    assert runs["late_good"].ok


def test_failures_name_their_cause(graded):
    _, runs, _ = graded
    assert runs["malformed_json"].error.startswith("not a notebook: invalid JSON at line 1")
    assert runs["duplicate_cell"].error == "cell id 'two_step_trace' appears twice"
    assert runs["kernel_dies"].error == "kernel died in cell agent (exit code 1)"
    assert runs["infinite_loop"].error == "timed out after 10 s in cell agent"


def test_a_failed_submission_gets_no_grade_row_or_feedback(graded):
    course, _, _ = graded
    for student in ("malformed_json", "duplicate_cell", "kernel_dies"):
        assert not (course / "autograded" / student / LAB).exists()
        assert not (course / "feedback" / student / LAB).exists()
