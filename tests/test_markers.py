"""The region parser: as strict as nbgrader, and the one every user of regions calls."""

from __future__ import annotations

import pytest

from course.grading.authoring import markers
from course.grading.authoring.markers import MarkerError

CELL = """def f(x):
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION
assert f(1) == 2
### BEGIN HIDDEN TESTS
assert f(5) == 10
### END HIDDEN TESTS"""


def test_lines_are_labelled_with_their_region():
    regions = [(ln.text.strip(), ln.region, ln.marker) for ln in markers.split(CELL)]
    assert regions[2] == ("return 2 * x", "solution", False)
    assert regions[1] == ("### BEGIN SOLUTION", "solution", True)
    assert regions[4] == ("assert f(1) == 2", None, False)
    assert regions[6] == ("assert f(5) == 10", "hidden", False)


def test_answer_text_and_strip_hidden():
    assert markers.answer_text(CELL).split("\n")[:3] == ["def f(x):", "    return 2 * x",
                                                          "assert f(1) == 2"]
    assert "### BEGIN HIDDEN TESTS" in markers.answer_text(CELL)
    stripped = markers.strip_hidden(CELL)
    assert "f(5)" not in stripped and "HIDDEN" not in stripped
    assert "BEGIN SOLUTION" in stripped
    expected = "def f(x):\n    return 2 * x\nassert f(1) == 2"
    assert markers.without(CELL, drop=("hidden",)) == expected


@pytest.mark.parametrize(("source", "message"), [
    ("### BEGIN SOLUTION\nx = 1\n### BEGIN HIDDEN TESTS\n### END HIDDEN TESTS\n### END SOLUTION",
     r"lab\.py:3: .*inside the solution region opened 2 lines above; regions cannot nest"),
    ("x = 1\n### BEGIN HIDDEN TESTS\nassert x", r"lab\.py:2: the hidden region opened here is "
     "never closed"),
    ("x = 1\n### END SOLUTION", r"lab\.py:2: .*closes no open region"),
    ("### BEGIN SOLUTION\n### END HIDDEN TESTS", r"lab\.py:2: .*closes no open region"),
])
def test_malformed_regions_name_the_file_and_line(source, message):
    with pytest.raises(MarkerError, match=message):
        markers.split(source, "lab.py")


def test_a_marker_inside_other_text_still_counts_as_nbgrader_reads_it():
    # nbgrader matches the marker anywhere in the line; so must we, or a hidden line leaks.
    lines = markers.split('x = 1  ### BEGIN HIDDEN TESTS\nsecret()\n### END HIDDEN TESTS')
    assert [ln.region for ln in lines] == ["hidden", "hidden", "hidden"]
