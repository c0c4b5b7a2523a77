"""The pre-flight: a broken grading environment stops `course grade` before the first student,
with the reason, and writes nothing; a working one sets each submission's budget."""

from __future__ import annotations

import nbformat
import pytest

from course.grading import runner
from course.grading.authoring import build
from course.grading.execution import grade, preflight, sandbox
from course.grading.proofs.mutation import submission

from . import ROOT

pytestmark = pytest.mark.slow

LAB = "lab01_tool_loop"
NB = f"{LAB}.ipynb"


def _course(tmp_path):
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path)
    build.generate(course, LAB)
    release = runner.read_notebook(course / "release" / LAB / NB)
    good = submission(release, runner.read_notebook(course / "source" / LAB / NB))
    for student in ("ann", "ben"):
        target = course / "submitted" / student / LAB / NB
        target.parent.mkdir(parents=True)
        nbformat.write(good, target)
    return course


def test_a_kernel_that_cannot_import_course_stops_grading_and_writes_nothing(
        tmp_path, monkeypatch):
    """The environment's editable install points at a checkout the sandbox does not mount
    (as when a virtual environment was made for another clone): every student would get 0."""
    course = _course(tmp_path)
    real = sandbox.default_sandbox()
    package = str(sandbox.Path(sandbox.course.__file__).resolve().parent)
    if any(package.startswith(r + "/") or package == r for r in real.readonly
           if r != package):
        pytest.skip("the support package is inside the environment here, not an editable "
                    "install; nothing to unmount")
    broken = sandbox.Sandbox(tuple(r for r in real.readonly if r != package))
    monkeypatch.setattr(sandbox, "default_sandbox", lambda: broken)
    before = sorted(p.relative_to(course) for p in course.rglob("*"))
    with pytest.raises(runner.PipelineError) as err:
        grade.grade_class(course, [LAB], jobs=1, progress=False)
    message = str(err.value)
    assert message.startswith(f"pre-flight: the solution of {LAB}/{LAB}"), message
    assert "cannot import the support package" in message and "nothing was graded" in message
    assert sorted(p.relative_to(course) for p in course.rglob("*")) == before
    assert not (course / "autograded" / "ann").exists()


def test_a_working_environment_grades_and_budgets_from_the_solution(tmp_path):
    course = _course(tmp_path)
    flight = preflight.preflight(course, [LAB], jobs=1, sandboxed=True)
    took = flight.seconds[LAB]
    assert 0 < took < 120
    assert flight.budget(LAB, 3.0, 600) == max(preflight.BUDGET_FLOOR, 3 * took)
    assert flight.budget(LAB, 3.0, 5) == 5  # the --timeout ceiling wins
    result = grade.grade_class(course, [LAB], jobs=2, progress=False)
    assert [r.auto_score for r in result.rows] == [14, 14]


def test_nbgraders_own_autograde_is_refused(tmp_path):
    """The formgrader's Autograde button runs nbgrader's autograde: unsandboxed, hidden tests
    in the kernel. The course's config refuses it before any cell runs."""
    course = _course(tmp_path)
    proc = runner.nbgrader(course, "autograde", LAB, "--force")
    assert "nbgrader's own autograde is off for this course" in proc.stdout + proc.stderr
    assert not list((course / "autograded").glob("*/*/*.ipynb"))


def test_a_submission_cut_by_the_floor_before_the_budgets_were_known_is_graded_again(
        tmp_path, monkeypatch):
    """The class is graded beside the pre-flight: the first student is handed out with the
    solution still running, so with the budget floor only. Cut by it while its real budget
    (the factor times the solution's time) is longer, it is graded again with that budget."""
    course = _course(tmp_path)
    good = course / "submitted" / "ann" / LAB / NB
    nb = runner.read_notebook(good)
    answer = next(c for c in nb.cells
                  if c.metadata.get("nbgrader", {}).get("grade_id") == "agent")
    answer.source = answer.source.replace('    """Run the tool-calling loop',
                                          '    __import__("time").sleep(0.8)\n'
                                          '    """Run the tool-calling loop', 1)
    nbformat.write(nb, good)
    monkeypatch.setattr(preflight, "BUDGET_FLOOR", 4.0)
    result = grade.grade_class(course, [LAB], jobs=2, progress=False, budget_factor=30.0)
    runs = {r.student: r for r in result.runs}
    rows = {r.student: r.auto_score for r in result.rows}
    assert runs["ann"].ok, runs["ann"].error
    assert rows == {"ann": 14, "ben": 14}
    assert runs["ann"].seconds > 4.0, "ann was not graded again with its real budget"


def test_the_gradebook_is_recorded_again_only_when_its_source_or_cells_changed(tmp_path):
    from nbgrader.api import Gradebook

    course = _course(tmp_path)
    assert build.refresh_gradebook(course, [LAB]) == [LAB]  # no record of it yet
    assert build.refresh_gradebook(course, [LAB]) == []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        cell = gb.find_assignment(LAB).notebooks[0].grade_cells[0]
        cell.max_score += 1
        gb.db.commit()
    assert build.refresh_gradebook(course, [LAB]) == [LAB]  # the gradebook was changed
    assert build.refresh_gradebook(course, [LAB]) == []
    src = course / "source" / LAB / NB
    nb = runner.read_notebook(src)
    nb.cells.append(nbformat.v4.new_markdown_cell("One more note."))
    nbformat.write(nb, src)
    assert build.refresh_gradebook(course, [LAB]) == [LAB]  # the source was changed
