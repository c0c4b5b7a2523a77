"""No graded test reads an attribute of the student's objects that the notebook never names
(issue: Lab 11's hidden test read `store.slots`, which the API text never showed)."""

from __future__ import annotations

import nbformat
import pytest

from course.grading import runner
from course.grading.authoring.api_names import unnamed

from . import ROOT

ASSIGNMENTS = runner.assignments(ROOT)


def _source(assignment: str) -> nbformat.NotebookNode:
    return runner.read_notebook(ROOT / "source" / assignment / f"{assignment}.ipynb")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_tests_read_only_names_the_notebook_shows(assignment):
    nb = _source(assignment)
    assert [u.located(ROOT, nb) for u in unnamed(nb)] == []


def test_a_planted_hidden_read_of_an_unnamed_attribute_is_found():
    nb = _source("lab11_context_reduction")
    cell = next(c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "store_supersedes")
    cell.source = cell.source.replace("### JUDGE", "_n = len(_s.slots)\n### JUDGE", 1)
    found = unnamed(nb)
    assert [(u.grade_id, u.attr) for u in found] == [("store_supersedes", "slots")], found
    # Named at the script line the planted read stands on: the '### JUDGE' line's, since
    # the read went in just above it.
    rel = "authoring/lab11_context_reduction/lab11_context_reduction.py"
    lines = (ROOT / rel).read_text(encoding="utf-8").splitlines()
    header = lines.index('# %% id="store_supersedes" kind="tests" points=2')
    judge = lines.index("### JUDGE", header) + 1
    assert found[0].located(ROOT, nb).startswith(
        f"{rel}:{judge} (cell 'store_supersedes'): reads .slots on the student's object"), \
        found[0].located(ROOT, nb)


def test_a_name_the_api_text_shows_is_allowed_and_one_it_does_not_is_not():
    def code(source, **meta):
        cell = nbformat.v4.new_code_cell(source)
        if meta:
            cell.metadata["nbgrader"] = meta
        return cell

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("```python\nbox = Box()\nbox.put(x)\n```"),
        code("class Box:\n    def put(self, x):\n        ### BEGIN SOLUTION\n"
             "        self.kept = [x]\n        ### END SOLUTION\n",
             solution=True, grade=False, grade_id="box"),
        code("b = Box()\nb.put(1)\nfor item in [b]:\n    item.kept\n### BEGIN HIDDEN TESTS\n"
             "rec = b.kept\n### END HIDDEN TESTS\n", grade=True, grade_id="t", points=1),
    ])
    assert [(u.grade_id, u.attr) for u in unnamed(nb)] == [("t", "kept"), ("t", "kept")]
