"""The instructor command line: grading a class, feedback, and clear errors on bad input."""

from __future__ import annotations

import html as html_lib
import re
import shutil
import subprocess
import sys

import pytest

from course.grading import runner
from course.grading.cli import main

from . import ROOT

LAB = "lab01_tool_loop"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_unknown_assignment_is_one_clear_line(capsys):
    code, _, err = run(capsys, "--course-dir", str(ROOT), "verify", "lab99_nothing")
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "unknown assignment(s) lab99_nothing; known: " in err and LAB in err


def test_no_submissions_is_one_clear_line(capsys, tmp_path):
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path)
    code, _, err = run(capsys, "--course-dir", str(course), "grade")
    assert code == 2 and "no submissions under" in err and "submitted/<student>" in err


def test_outside_a_course_folder(capsys, tmp_path):
    code, _, err = run(capsys, "--course-dir", str(tmp_path), "check")
    assert code == 2 and "no nbgrader_config.py" in err


def _tree(tmp_path):
    copy = tmp_path / "tree"
    for name in ("source", "release", "course", "authoring", "tests"):
        shutil.copytree(ROOT / name, copy / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy2(ROOT / "nbgrader_config.py", copy)
    return copy


def test_malformed_cassette_is_reported_by_check(capsys, tmp_path):
    tree = _tree(tmp_path)
    (tree / "course" / "cassettes" / "broken.json").write_text('{"version": 1, "interac')
    code, out, _ = run(capsys, "--course-dir", str(tree), "check", "--fast")
    assert code == 1
    assert "course/cassettes/broken.json: invalid JSON at line 1" in out


@pytest.mark.slow
def test_malformed_notebook_stops_release_and_writes_nothing(capsys, tmp_path):
    tree = _tree(tmp_path)
    before = {p: p.read_bytes() for p in (tree / "release").rglob("*") if p.is_file()}
    broken = tree / "source" / LAB / f"{LAB}.ipynb"
    broken.write_text(broken.read_text()[:500])
    shutil.rmtree(tree / "authoring")  # release would otherwise rebuild the source first
    (tree / "authoring").mkdir()
    code, _, err = run(capsys, "--course-dir", str(tree), "release", "--no-solutions", LAB)
    assert code == 2 and err.startswith("error: ") and err.strip().count("\n") == 0
    after = {p: p.read_bytes() for p in (tree / "release").rglob("*") if p.is_file()}
    assert after == before, "a failed release must leave release/ as it was"


def test_broken_authoring_script_names_file_and_line(capsys, tmp_path):
    tree = _tree(tmp_path)
    script = tree / "authoring" / LAB / f"{LAB}.py"
    script.write_text(script.read_text().replace('kind="tests" points=2', 'kind="tests"', 1))
    code, _, err = run(capsys, "--course-dir", str(tree), "build")
    assert code == 2 and f"authoring/{LAB}/{LAB}.py:" in err and "positive points" in err


@pytest.fixture(scope="module")
def class_course(graded_class):
    return graded_class[0]


@pytest.mark.slow
def test_grade_prints_a_table_per_student_and_cell(graded_class):
    _, code, out = graded_class
    assert code == 0, out
    lines = out.splitlines()
    row = {ln.split()[0]: ln for ln in lines if ln.startswith("   ") and "/14" in ln}
    assert row["solution"].endswith("14/14")
    assert row["stub"].endswith("0/14")
    assert row["bug-split_results"].endswith("12/14")
    assert "parallel_results_one_message (2 pt)" in out
    assert "2/3  lab01_tool_loop: parallel_results_one_message  (bug-split_results, stub)" in out
    assert "autograded 3/3 submissions" in out


@pytest.mark.slow
def test_feedback_writes_html_for_each_student(capsys, class_course):
    code, _, _ = run(capsys, "--course-dir", str(class_course), "feedback", LAB)
    assert code == 0
    pages = sorted(p.parent.parent.name for p in (class_course / "feedback").rglob("*.html"))
    assert pages == ["bug-split_results", "solution", "stub"]
    # the class report is rewritten: each student's name now links to their page
    report = class_course / "reports" / "class_report.html"
    links = set(re.findall(r'href="([^#"][^"]*)"', report.read_text()))
    assert {(report.parent / link).resolve() for link in links} == {
        p.resolve() for p in (class_course / "feedback").rglob("*.html")}
    html = (class_course / "feedback" / "bug-split_results" / LAB / f"{LAB}.html").read_text()
    assert "tool results split across 3 user messages" in html
    from course.grading.authoring.integrity import secret_lines

    source = runner.read_notebook(ROOT / "source" / LAB / f"{LAB}.ipynb")
    for page in (class_course / "feedback").rglob("*.html"):
        text = " ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", page.read_text())).split())
        # positive control: a line of a visible, ungraded cell is found by the same search
        assert "split_fake = weather.three_cities()" in text
        # test cells show their result only, never their code
        verdict = "✓ passed" if page.parent.parent.name == "solution" else "✗ failed"
        assert f"Check parallel_results_one_message: {verdict}" in text
        assert "(The test code is not shown.)" in text
        leaked = [s for s in secret_lines(source, solutions=False) if s in text]
        assert not leaked, f"{page} shows hidden-test lines: {leaked[:3]}"


def test_class_report_ranks_cells_and_shortens_long_name_lists():
    from course.grading.results.model import CellScore, ClassResults, NotebookScore
    from course.grading.results.report import class_report

    rows = []
    for i in range(8):
        lost = 0 if i < 7 else 2  # seven students lose cell "a", one keeps it
        rows.append(NotebookScore(f"s{i}", "lab", "lab", [
            CellScore("a", lost, 2, True), CellScore("b", 2 if i else 0, 2, True),
            CellScore("essay", None, 3, False)]))
    text = class_report(ClassResults(rows))
    lines = text.splitlines()
    assert lines[1] == "  7/8  lab: a  (s0, s1, s2, s3, s4, and 2 more)"
    assert lines[2] == "  1/8  lab: b  (s0)"
    assert "essay" not in text  # hand-graded cells are not bugs


LIGHT = """
import sys
import course.grading.cli, course.grading.execution.grade, course.grading.execution.pool
from traitlets.config.loader import PyFileConfigLoader
PyFileConfigLoader("nbgrader_config.py", path=sys.argv[1]).load_config()
print(" ".join(m for m in ("anthropic", "course.cassette", "course.hub") if m in sys.modules))
"""


def test_the_command_line_and_the_nbgrader_config_leave_the_sdk_unimported():
    """``course grade`` starts its workers and reads the class while the fork server
    imports the engine; the SDK (about a second of import) is the workers' alone. Plain
    nbgrader commands load the same config."""
    done = subprocess.run([sys.executable, "-c", LIGHT, str(ROOT)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "", f"imported: {done.stdout.strip()}"


def test_a_bad_cassette_is_one_clear_line_though_the_cli_never_imports_the_module(capsys,
                                                                                    tmp_path):
    from course.cassette import Cassette

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError) as caught:
        Cassette.load(bad)
    from course.grading import cli

    assert cli._cassette_error(caught.value)
    assert not cli._cassette_error(ValueError("any other"))
