"""`nbgrader validate` prints a long failure message whole, in the student copy's set-up:
nbgrader alone would cut each line at 90 columns, losing the values and the hint."""

from __future__ import annotations

import subprocess
import sys

import nbformat

from course.grading.authoring.export import student_config
from course.grading.runner import nbgrader_env

from . import ROOT


def _notebook(message: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(f"assert False, {message!r}")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": "long", "points": 1,
                                 "solution": False, "locked": True, "schema_version": 3}
    return nbformat.v4.new_notebook(cells=[cell])


def test_a_long_message_is_wrapped_not_cut(tmp_path):
    message = ("nearest rank ceil(0.95*20)=19, the 19th value (19), got 60; " * 3
               + "HINT-AT-THE-END: sort the values first")
    (tmp_path / "nbgrader_config.py").write_text(student_config(None), encoding="utf-8")
    nbformat.write(_notebook(message), tmp_path / "n.ipynb")
    env = nbgrader_env()
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "validate", "n.ipynb"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    shown = proc.stdout
    assert "HINT-AT-THE-END: sort the values first" in " ".join(shown.split()), shown
    assert "got 6..." not in shown
    assert max(len(line) for line in shown.splitlines()) <= 90, shown


def _graded_cell(gid: str, source: str, error: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": gid, "points": 1,
                                 "solution": False, "locked": True}
    cell.outputs = [nbformat.v4.new_output("error", ename=error.split(":")[0],
                                           evalue=error.split(": ", 1)[-1],
                                           traceback=[f"\x1b[31m{error}\x1b[0m"])]
    return cell


def test_validate_reports_one_entry_per_failing_check_message_first():
    """Issue 28, item 4: an untouched notebook listed the whole source of every test; now a
    line per unwritten function, then each other failing check by name with its message,
    and no test source."""
    from nbgrader.validator import Validator

    from course.validate_messages import entries, header, install

    install()
    stub = nbformat.v4.new_code_cell("def agent(goal):\n    # YOUR CODE HERE\n"
                                     "    raise NotImplementedError()\n\ndef helper():\n"
                                     "    return 1")
    stub.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "agent"}
    failed = [_graded_cell("step_cap", "out = agent('x')\nassert out", "NotImplementedError: "),
              _graded_cell("two_step", "assert agent('y') == 2", "NotImplementedError: "),
              _graded_cell("budget", "assert spend() == 3",
                           "AssertionError: spent 4 of a 3 limit; stop before the call")]
    nb = nbformat.v4.new_notebook(cells=[stub, *failed])
    found = entries(nb, failed, Validator()._extract_error)
    assert [e["source"] for e in found] == ["`agent` is not written yet", "check budget"]
    assert "checks step_cap, two_step call it" in found[0]["raw_error"]
    assert found[1]["raw_error"] == "AssertionError: spent 4 of a 3 limit; stop before the call"
    assert not any("assert " in e["raw_error"] or "agent('x')" in e["raw_error"] for e in found)
    for count in (1, 9, 12):
        line = header(count)
        assert "\n" not in line and len(line) <= 90 and line.count(".") == 1, line
    assert Validator._print_num_failed.__module__ == "course.validate_messages"
