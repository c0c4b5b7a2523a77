"""The README's main job: the instructor demo, end to end, on the committed course.

The test runs the demo on two notebooks, the two whose kernels start quickest (they do not
import the SDK): ``test_integrity`` already grades every sample of every notebook through
the same code, so grading all of them here again would prove nothing new and double the
suite's slowest part.
"""

from __future__ import annotations

import pytest

from course.grading import cli
from course.grading.demo import run_demo
from course.grading.results.diagnose import mutants_of

from . import ROOT

DEMO = ["lab06_eval_harness", "lab09_trajectory"]


def test_demo_takes_a_choice_of_assignments():
    args = cli.parser().parse_args(["demo", *DEMO, "--keep", "x"])
    assert args.assignments == DEMO and args.keep == "x"


@pytest.mark.slow  # starts kernels and nbgrader processes
def test_demo_grades_solution_stub_and_one_bug_per_notebook(capsys, tmp_path):
    code = run_demo(ROOT, keep=tmp_path / "demo", which=DEMO)
    out = capsys.readouterr().out
    names = DEMO
    assert code == 0, out
    assert f"Demo: 2 assignment(s): {', '.join(DEMO)}" in out
    assert f"{3 * len(names)}/{3 * len(names)} submissions scored as they must" in out
    for a in names:
        block = out.split(f"== {a}/")[1].split("\n\n")[0]
        rows = {ln.split()[0]: ln.split()[-1] for ln in block.splitlines()
                if ln.startswith("   ") and "/" in ln.split()[-1] and not ln.strip()[0] == "t"}
        full = rows["solution"].split("/")[1]
        assert rows["solution"] == f"{full}/{full}", block
        assert rows["stub"] == f"0/{full}", block
        bug = next(k for k in rows if k.startswith("bug-"))
        assert rows[bug] != rows["solution"], block
    feedback = list((tmp_path / "demo").rglob("feedback/*/*/*.html"))
    assert len(feedback) == 3 * len(names), "feedback HTML for every demo submission"
    url = next(ln.split(": ", 1)[1] for ln in out.splitlines() if ln.startswith("class report: "))
    report = next((tmp_path / "demo").rglob("reports/class_report.html"))
    assert url == report.resolve().as_uri()
    page = report.read_text()
    for a in names:
        heatmap = page.split(f'<table class="heatmap" data-assignment="{a}"')[1]
        heatmap = heatmap.split("</table>")[0]
        for student in ("solution", "stub", f"bug-{mutants_of(ROOT, a)[0].name}"):
            assert f'<tr data-student="{student}"' in heatmap, (a, student)
