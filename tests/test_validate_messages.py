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
