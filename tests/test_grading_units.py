"""The grader's parts that need no kernel: parsing and restoring a submission, redacting
feedback, scanning pages, the grade table's flags, progress lines, the sandbox command."""

from __future__ import annotations

import io

import nbformat
import pytest

from course.grading.authoring.integrity import secret_lines
from course.grading.execution import engine
from course.grading.execution.pool import Progress
from course.grading.execution.sandbox import Sandbox
from course.grading.results import report
from course.grading.results.feedback import RedactTests, scan_page
from course.grading.results.model import CellScore, ClassResults, GradeRun, NotebookScore
from course.grading.runner import last_error, read_notebook

from . import ROOT

LAB = "lab01_tool_loop"


@pytest.fixture(scope="module")
def source():
    return read_notebook(ROOT / "source" / LAB / f"{LAB}.ipynb")


@pytest.fixture(scope="module")
def release():
    return read_notebook(ROOT / "release" / LAB / f"{LAB}.ipynb")


def _cell(nb, gid):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == gid)


def test_invalid_json_names_the_line():
    text = '{\n "cells": [\n  this is not json\n'
    with pytest.raises(engine.GradeFailure, match=r"^not a notebook: invalid JSON at line 3 "):
        engine.parse_submission(text, "x.ipynb")


def test_duplicated_cell_is_named(release):
    nb = nbformat.from_dict(release)
    nb.cells.append(nbformat.from_dict(_cell(nb, "step_cap")))
    nb.cells[-1].id = "another-id"
    with pytest.raises(engine.GradeFailure, match="^cell id 'step_cap' appears twice$"):
        engine.parse_submission(nbformat.writes(nb), "x.ipynb")


def test_restore_puts_tests_back_and_ungrades_strangers(release, source):
    nb = nbformat.from_dict(release)
    _cell(nb, "two_step_trace").source = "pass  # the student emptied the test"
    retyped = _cell(nb, "step_cap")
    retyped.cell_type = "markdown"
    stranger = nbformat.v4.new_code_cell("x = 1")
    stranger.metadata["nbgrader"] = {"grade_id": "invented", "grade": True, "points": 99,
                                     "solution": False, "locked": True}
    nb.cells.append(stranger)
    nb.cells = [c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") != "refusal_handled"]
    out = engine.restore(nb, source)
    assert _cell(out, "two_step_trace").source == _cell(source, "two_step_trace").source
    assert _cell(out, "step_cap").cell_type == "code"
    assert "nbgrader" not in out.cells[-1].metadata
    assert not any(c.metadata.get("nbgrader", {}).get("grade_id") == "refusal_handled"
                   for c in out.cells)


def test_redacted_test_cell_keeps_only_its_result(source):
    cell = nbformat.from_dict(_cell(source, "step_cap"))
    cell.metadata.nbgrader["score"] = 0
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="ECHO " + cell.source),
        nbformat.v4.new_output("error", ename="AssertionError",
                               evalue="the loop ran 13 steps\nsecond line", traceback=["tb"]),
    ]
    out, _ = RedactTests().preprocess_cell(cell, {}, 0)
    assert out.source == "# test step_cap: 0/2 points, failed (test code not shown)"
    assert out.outputs == []  # the message moves into the cell's own panel
    verdict = out.metadata.course_feedback
    assert verdict["verdict"] == "failed" and verdict["message"].startswith(
        "the loop ran 13 steps")
    assert "ECHO" not in str(out)


def _graded(kind, gid, points, score, outputs=(), source="x = 1", **meta):
    cell = (nbformat.v4.new_code_cell(source) if kind == "code"
            else nbformat.v4.new_markdown_cell(source))
    cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True,
                              "grade_id": gid, "points": points, "score": score, **meta}
    if kind == "code":
        cell.outputs = list(outputs)
    return cell


def _error(name, value):
    return nbformat.v4.new_output("error", ename=name, evalue=value,
                                  traceback=[f"{name}: {value}"])


def feedback_page(cells) -> str:
    """``cells`` through the feedback exporter and template ``nbgrader_config.py`` names."""
    from course.grading.results.feedback import (
        TEMPLATE_DIRS,
        TEMPLATE_PATHS,
        FeedbackExporter,
    )

    exporter = FeedbackExporter(template_name="course_feedback",
                                extra_template_basedirs=TEMPLATE_DIRS,
                                extra_template_paths=TEMPLATE_PATHS, preprocessors=[RedactTests])
    body, _ = exporter.from_notebook_node(nbformat.v4.new_notebook(cells=cells), resources={
        "nbgrader": {"notebook": "lab", "score": 1, "max_score": 9, "late_penalty": 0}})
    return body


def test_feedback_opens_with_a_summary_of_every_graded_cell():
    """Issue 28, item 1: names, points and verdicts in words at the top, each linking to its
    panel; a failed check's message first in its own panel, wrapped and whole; a written
    answer waits for manual grading and is left out of the automatic total; a stub's check
    names the function that is not written yet."""
    import html as _html
    import re

    long = "the loop sent <3 messages; " + "expected 5 " * 40  # under the 600 cap
    stub = nbformat.v4.new_code_cell("def agent(x):\n    # YOUR CODE HERE\n"
                                     "    raise NotImplementedError()")
    stub.metadata.nbgrader = {"grade": False, "solution": True, "grade_id": "agent",
                              "locked": False}
    page = feedback_page([
        nbformat.v4.new_markdown_cell("# Lab"), stub,
        _graded("code", "step_cap", 2, 0, [_error(
            "NotImplementedError", "a function this test calls is not written yet (it still "
            "raises NotImplementedError)")],
            source="out = agent(1)\n### BEGIN HIDDEN TESTS\nsecret_value = 1\n"
                   "### END HIDDEN TESTS"),
        _graded("code", "two_step", 3, 0, [_error("AssertionError", long)]),
        _graded("code", "ok_cell", 1, 1),
        _graded("markdown", "why", 3, 0, solution=True, locked=False,
                needs_manual_grade=True, source="my answer"),
    ])
    summary = page.split('id="summary"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr class="course-(\w+)">\s*<td><a href="#(\w+)">', summary)
    assert rows == [("failed", "step_cap"), ("failed", "two_step"), ("passed", "ok_cell"),
                    ("waiting", "why")]
    text = " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", summary)).split())
    assert "\u2717 failed: not written yet 0 / 2" in text and "\u2717 failed 0 / 3" in text
    assert "\u2713 passed 1 / 1" in text
    assert "\u2026 waiting for manual grading 3" in text
    total = " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", page.split(
        'class="course-total"', 1)[1].split("</p>", 1)[0])).split())
    assert "1 / 6 points" in total and "(1 of 3 checks passed)" in total
    assert "1 written answer (3 points) is waiting for manual grading, not counted" in total
    for gid in ("step_cap", "two_step", "ok_cell", "why"):
        assert f'id="{gid}"' in page  # each summary link has its target
    # the message sits inside its own panel, escaped, whole, first in the panel's body
    panel = page.split('id="two_step"', 1)[1].split('class="text-muted"', 1)[0]
    assert '<div class="course-message">' + _html.escape(long, quote=False) in panel
    assert "`agent` is not written yet" in page
    assert "secret_value" not in page and "<3 messages" not in page
    assert ".course-message { white-space: pre-wrap; overflow-wrap: anywhere;" in page


def test_scan_page_finds_a_hidden_line_and_spares_the_students_own(tmp_path, source):
    line = sorted(secret_lines(source))[0]
    page = tmp_path / "p.html"
    page.write_text(f"<pre><span class='k'>{line}</span></pre>")
    assert scan_page(page, source, set()) == [line]
    assert scan_page(page, source, {line}) == []


def test_nbgrader_error_lines_are_found():
    import subprocess

    proc = subprocess.CompletedProcess([], 1, "", "[AutogradeApp | WARNING] x\n"
                                       "[AutogradeApp | ERROR] cell id 'a' appears twice\n"
                                       "[AutogradeApp | INFO] done\n")
    assert last_error(proc) == "[AutogradeApp | ERROR] cell id 'a' appears twice"


def _row(student, score):
    return NotebookScore(student, LAB, LAB, [CellScore("step_cap", score, 2, True)])


def test_grade_table_shows_failed_review_and_no_sandbox():
    runs = [GradeRun("ann", LAB, True, sandboxed=False),
            GradeRun("bob", LAB, False, "kernel died in cell agent (exit code 1)"),
            GradeRun("cy", LAB, True, review=["builtin all replaced"])]
    results = ClassResults([_row("ann", 2), _row("bob", 0), _row("cy", 0)], runs,
                           {f"cy/{LAB}": ["builtin all replaced"]})
    text = report.grade_table(results)
    assert "!! bob / lab01_tool_loop: FAILED: kernel died in cell agent (exit code 1)" in text
    assert "   bob " not in text  # no zeros that look like a grade
    assert "?? cy / lab01_tool_loop: needs review: builtin all replaced" in text
    assert "WARNING: graded WITHOUT the sandbox" in text
    # bob's run failed: his stale zero is no lost cell either; cy awaits review
    rep = report.class_report(results)
    assert f"1/2  {LAB}: step_cap  (cy)" in rep and "bob" not in rep


def test_progress_prints_one_plain_line_per_submission():
    stream = io.StringIO()
    bar = Progress(2, stream=stream)
    bar.update(engine.Outcome("ann", LAB, LAB, ok=True, seconds=1.5))
    bar.update(engine.Outcome("bob", LAB, LAB, ok=False, error="timed out after 30 s in cell x"))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("[1/2] ann/lab01_tool_loop ok 1.5s | ")
    assert "ETA" in lines[0] and "0 failed" in lines[0]
    assert lines[1].startswith("[2/2] bob/lab01_tool_loop FAILED") and "1 failed" in lines[1]


def test_sandbox_command_isolates_the_kernel(tmp_path):
    cmd = Sandbox(("/opt/env",)).command(tmp_path, ["python", "-m", "ipykernel_launcher"])
    joined = " ".join(cmd)
    for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent",
                 f"--bind {tmp_path.with_name(tmp_path.name + '-tmp')} /tmp",
                 "--ro-bind /opt/env /opt/env", f"--bind {tmp_path} {tmp_path}",
                 "--reuid=65534", "--nproc=", "--fsize=", "--as="):
        assert flag in joined, flag
    assert cmd[-3:] == ["python", "-m", "ipykernel_launcher"]


def test_sandbox_gives_fontconfig_its_configuration(tmp_path):
    """Issue 28: "Fontconfig error: Cannot load default config file" reached the outputs of
    every notebook that draws (Labs 2, 3, 5, 8, 11): the sandbox hid /etc/fonts."""
    joined = " ".join(Sandbox(("/opt/env",)).command(tmp_path, ["python"]))
    assert "--ro-bind-try /etc/fonts /etc/fonts" in joined
    assert "--ro-bind-try /var/cache/fontconfig /var/cache/fontconfig" in joined


@pytest.mark.slow
def test_matplotlib_draws_in_the_sandbox_without_fontconfig_noise():
    import shutil
    import subprocess
    import sys

    from course.grading.execution.sandbox import default_sandbox, new_scratch, release_scratch

    scratch = new_scratch({}, sandboxed=True)
    (scratch / "work").mkdir(exist_ok=True)
    code = ("import matplotlib.pyplot as plt; plt.plot([1, 2]); plt.title('spend'); "
            "plt.savefig('/tmp/x.png'); print('drew')")
    try:
        proc = subprocess.run(default_sandbox().command(scratch, [sys.executable, "-c", code]),
                              capture_output=True, text=True, timeout=300)
    finally:
        release_scratch(scratch)
        shutil.rmtree(scratch, ignore_errors=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "drew", proc.stderr[-2000:]
    assert "Fontconfig" not in proc.stderr, proc.stderr[-2000:]


def test_a_kernel_that_fails_to_start_is_retried_once(monkeypatch, release, source):
    calls = []

    async def flaky(job, nb, *args, **kw):
        calls.append(1)
        raise engine.KernelStartFailure("Kernel didn't respond in 60 seconds")

    monkeypatch.setattr(engine, "_run", flaky)
    job = engine.Job("ann", LAB, LAB, {f"{LAB}.ipynb": nbformat.writes(release).encode()},
                     nbformat.writes(source), sandboxed=False)
    out = engine.grade_job(job)
    assert len(calls) == 2 and out.attempts == 2 and not out.ok
    assert out.error == "kernel failed to start twice: Kernel didn't respond in 60 seconds"



def test_judging_a_sample_names_every_wrong_cell():
    """The verdict on a sample's cells fails when a bug keeps a cell it must lose, loses one
    it must keep, or names a cell that does not exist."""
    from course.grading.proofs.mutation import Mutant, Sample
    from course.grading.proofs.verify import judge_cells

    bug = Mutant("b", "a bug", "agent", "x", "y", loses={"caught"})
    sample = Sample("bug-b", "lab", "mutant", bug)
    assert judge_cells(sample, {"caught": (0, 2), "other": (1, 1)}) == []
    assert judge_cells(sample, {"caught": (2, 2), "other": (0, 1)}) == [
        "caught: scored 2/2, must score 0", "other: scored 0/1, must keep full points"]
    assert judge_cells(sample, {"other": (1, 1)}) == ["names cells that do not exist: ['caught']"]
    assert judge_cells(Sample("stub", "lab", "stub"), {"a": (0, 1), "b": (0.5, 1)}) == [
        "b: scored 0.5/1, must score 0"]
    assert judge_cells(Sample("solution", "lab", "solution"), {"a": (1, 1), "b": (0, 1)}) == [
        "b: scored 0/1, must keep full points"]


def test_results_from_runs_take_the_review_flags_the_runs_reported():
    runs = [GradeRun("ann", LAB, True), GradeRun("cy", LAB, True, review=["builtin all replaced"])]
    results = ClassResults.from_runs([_row("ann", 2), _row("cy", 0)], runs)
    assert results.flagged == {("cy", LAB)}
    assert [r.student for r in results.honest] == ["ann"]
    assert "?? cy / lab01_tool_loop: needs review: builtin all replaced" in \
        report.grade_table(results)


def test_nbgraders_sqlalchemy_warnings_do_not_reach_the_instructor():
    """Issue 28: three ``SAWarning``s from nbgrader's gradebook reached the terminal of every
    ``./dev demo``; another library's warning still shows."""
    import warnings

    from sqlalchemy.exc import SAWarning

    from course.grading import runner

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        runner.quiet_nbgrader_warnings()
        for module in ("nbgrader.api", "course.grading.execution.grade"):
            warnings.warn_explicit("Object of type <SubmittedNotebook> not in session",
                                   SAWarning, "api.py", 149, module=module)
    assert [w.filename for w in seen] == ["api.py"] and len(seen) == 1
    assert "quiet_nbgrader_warnings" in runner.NBGRADER_MAIN


def test_writing_feedback_says_what_it_is_doing(monkeypatch, tmp_path):
    """Issue 28: after the last submission `./dev demo` printed nothing for three minutes
    while it wrote feedback. Now one line per assignment, then one for the page check."""
    import subprocess

    from course.grading.execution import grade
    from course.grading.results import feedback

    def fake_nbgrader(course_dir, *args, **kw):
        page = course_dir / "feedback" / "ann" / args[1] / f"{args[1]}.html"
        page.parent.mkdir(parents=True)
        page.write_text("<html></html>")
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(grade, "nbgrader", fake_nbgrader)
    monkeypatch.setattr(feedback, "scan_feedback", lambda course: [])
    stream = io.StringIO()
    assert grade.write_feedback(tmp_path, ["lab_a", "lab_b"], progress=stream) == []
    lines = stream.getvalue().splitlines()
    assert [ln.split(":")[0] for ln in lines[:2]] == ["[feedback 1/2] lab_a",
                                                      "[feedback 2/2] lab_b"]
    assert "1 page(s)" in lines[0] and lines[2].startswith("[feedback] checking")
    assert grade.write_feedback(tmp_path, [], progress=None) == []  # quiet by default


def test_the_longest_assignments_are_graded_first(tmp_path):
    from course.grading.execution.grade import heaviest_first
    from course.grading.results.model import GradeRun, save_runs

    def job(student, assignment, size):
        return engine.Job(student, assignment, assignment, {}, "x" * size)

    work = [job("ann", "short", 10), job("bob", "short", 10), job("ann", "long", 500),
            job("bob", "long", 500)]
    order = [(j.assignment, j.student) for j in heaviest_first(tmp_path, work)]
    assert order == [("long", "ann"), ("long", "bob"), ("short", "ann"), ("short", "bob")]
    # once every assignment has recorded runs, their seconds decide, not the source's size
    save_runs(tmp_path, [GradeRun("ann", "short", True, seconds=9.0),
                         GradeRun("ann", "long", True, seconds=2.0)])
    order = [j.assignment for j in heaviest_first(tmp_path, work)]
    assert order == ["short", "short", "long", "long"]
    # a run that failed says nothing of how long grading takes
    save_runs(tmp_path, [GradeRun("ann", "short", False, seconds=0.0)])
    assert heaviest_first(tmp_path, work)[0].assignment == "long"


def test_a_template_preloads_the_modules_a_notebooks_code_imports():
    from course.grading.execution.warm import imports_of
    from course.kernelfork import PRELOAD

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("import markdown_is_not_code"),
        nbformat.v4.new_code_cell("import json, os.path as p\nfrom course.worlds import "
                                  "weather\nfrom . import sibling\nfrom star import *"),
        nbformat.v4.new_code_cell("%matplotlib inline\nimport not_parsed"),
        nbformat.v4.new_code_cell("def f():\n    import inside_a_function\n"
                                  "import numpy, anthropic"),
    ])
    assert imports_of([nbformat.writes(nb)]) == (
        "course.worlds", "course.worlds.weather", "inside_a_function", "json", "os.path",
        "star")
    assert {"numpy", "anthropic"} <= set(PRELOAD), "names the template imports anyway"
