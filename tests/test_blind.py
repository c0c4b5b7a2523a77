"""The blind samples (``tests/blind/``): bugs and correct variants written from the release
notebook alone. They measure Validate (``course verify`` prints the rates); here the suite
checks they fit their notebooks, and that every correct variant scores full marks, since a
correct variant that loses a point means a hidden test asks for more than the text says."""

from __future__ import annotations

import pytest

from course.grading import runner
from course.grading.proofs.blind import (
    BlindError,
    answer_cells,
    blind_file,
    blind_submission,
    load_blind,
    measure,
)

from . import ROOT

ASSIGNMENTS = runner.assignments(ROOT)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_notebook_has_a_blind_set_that_fits_its_release(assignment):
    found = load_blind(blind_file(ROOT, assignment))
    bugs = [b for b in found if not b.correct]
    right = [b for b in found if b.correct]
    assert len(bugs) >= 8 and len(right) >= 2, (len(bugs), len(right))
    (release,) = sorted((ROOT / "release" / assignment).glob("*.ipynb"))
    nb = runner.read_notebook(release)
    code_answers = set(answer_cells(nb))
    for b in found:
        assert b.bug.strip(), f"{b.name}: say what the sample gets wrong or does otherwise"
        assert b.cells and set(b.cells) <= code_answers, (b.name, sorted(b.cells))
        filled = blind_submission(nb, b)
        assert filled is not nb


def test_a_sample_naming_a_cell_the_notebook_lacks_is_refused():
    from course.grading.proofs.blind import Blind

    (release,) = sorted((ROOT / "release" / "lab01_tool_loop").glob("*.ipynb"))
    with pytest.raises(BlindError, match="no answer cell"):
        blind_submission(runner.read_notebook(release), Blind("x", "y", {"nope": "pass"}))


@pytest.mark.slow
def test_every_blind_correct_variant_scores_full_marks_and_passes_validate():
    short = []
    for rate in measure(ROOT, None, jobs=2):
        for b in rate.samples:
            if b.correct and (rate.lost[b.name] or rate.failures[b.name]):
                short.append(f"{rate.assignment}/{b.name}: loses {rate.lost[b.name]}, "
                             f"Validate: {rate.failures[b.name] or 'passes'}")
    assert not short, "\n".join(short)
