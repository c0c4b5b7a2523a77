"""The blind samples (``tests/blind/``): bugs and correct variants written from the release
notebook alone. They measure Validate (``course verify`` prints the rates); here the suite
checks they fit their notebooks, and that every correct variant scores full marks, since a
correct variant that loses a point means a hidden test asks for more than the text says."""

from __future__ import annotations

import shutil
import warnings

import pytest

from course.grading import runner
from course.grading.proofs.blind import (
    BlindError,
    BlindRate,
    answer_cells,
    blind_file,
    blind_submission,
    load_set,
    measure,
    set_problems,
)

from . import ROOT

ASSIGNMENTS = runner.assignments(ROOT)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_notebook_has_a_blind_set_that_fits_its_release(assignment):
    assert set_problems(ROOT, assignment) == []
    blind_set = load_set(blind_file(ROOT, assignment))
    found = blind_set.samples
    if blind_set.authors_own:
        warnings.warn(f"{blind_file(ROOT, assignment).relative_to(ROOT)} is the author's own, "
                      "not blind (WRITTEN_BY = 'author'): its rates flatter the visible "
                      "checks until someone who read only the release writes the set",
                      stacklevel=1)
    (release,) = sorted((ROOT / "release" / assignment).glob("*.ipynb"))
    nb = runner.read_notebook(release)
    code_answers = set(answer_cells(nb))
    for b in found:
        assert b.bug.strip(), f"{b.name}: say what the sample gets wrong or does otherwise"
        assert b.cells and set(b.cells) <= code_answers, (b.name, sorted(b.cells))
        filled = blind_submission(nb, b)
        assert filled is not nb


def _blind_file(root, assignment, body):
    path = root / "tests" / "blind" / f"{assignment}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("from course.grading.proofs.blind import Blind\n" + body, encoding="utf-8")
    return path


def test_a_missing_blind_set_names_the_file_and_the_format(tmp_path):
    """Before: ``AssertionError: (0, 0) assert (0 >= 8)``, naming no notebook and no file."""
    (problem,) = set_problems(tmp_path, "lab99_bucket")
    assert problem.startswith("lab99_bucket: no blind set: tests/blind/lab99_bucket.py does "
                              "not exist"), problem
    assert 'BLIND = [Blind(name="...", bug=' in problem and "correct=True" in problem, problem


def test_a_short_blind_set_says_what_it_has_and_needs(tmp_path):
    _blind_file(tmp_path, "lab99_bucket", 'BLIND = [Blind("a", "off by one", {"x": "pass"}),\n'
                '         Blind("b", "a loop", {"x": "pass"}, correct=True)]\n')
    (problem,) = set_problems(tmp_path, "lab99_bucket")
    assert problem.startswith("lab99_bucket: tests/blind/lab99_bucket.py has 1 bug(s) and 1 "
                              "correct variant(s), needs 8 and 2"), problem


def test_a_set_the_author_wrote_is_reported_as_not_blind(tmp_path):
    samples = "".join(f'    Blind("b{i}", "bug {i}", {{"x": "pass"}}),\n' for i in range(8))
    samples += "".join(f'    Blind("c{i}", "another way", {{"x": "pass"}}, correct=True),\n'
                       for i in range(2))
    path = _blind_file(tmp_path, "lab99_bucket", f"WRITTEN_BY = 'author'\nBLIND = [\n{samples}]\n")
    blind_set = load_set(path)
    assert blind_set.authors_own and len(blind_set.samples) == 10
    assert set_problems(tmp_path, "lab99_bucket") == []
    rate = BlindRate("lab99_bucket", blind_set.samples,
                     {b.name: "" for b in blind_set.samples},
                     {b.name: [] for b in blind_set.samples}, blind_set.authors_own)
    assert rate.line().startswith("the author's own bugs, not blind: Validate fails 0/8"), \
        rate.line()
    blind = BlindRate("lab99_bucket", blind_set.samples, rate.failures, rate.lost)
    assert blind.line().startswith("blind bugs: Validate fails 0/8"), blind.line()
    path.write_text(path.read_text().replace("'author'", "'me'"))
    with pytest.raises(BlindError, match="WRITTEN_BY = 'me'; it is 'blind'"):
        load_set(path)


def test_a_blind_file_that_does_not_fit_is_named_and_verify_says_so_in_one_line(
        tmp_path, monkeypatch, capsys):
    """Before: the sample's name only, and ``course verify`` stopped with a traceback."""
    from course.grading import cli

    course = tmp_path / "course"
    for folder in ("source", "release"):
        shutil.copytree(ROOT / folder / "lab01_tool_loop", course / folder / "lab01_tool_loop")
    path = _blind_file(course, "lab01_tool_loop", 'BLIND = [Blind("x", "y", {"nope": "pass"})]\n')
    with pytest.raises(BlindError) as caught:
        measure(course, ["lab01_tool_loop"], jobs=1)
    assert str(caught.value).startswith(f"{path}: blind sample 'x': no answer cell ['nope']"), \
        caught.value

    def verify(args):
        measure(course, ["lab01_tool_loop"], jobs=1)
        return 0

    monkeypatch.setattr(cli, "cmd_verify", verify)
    assert cli.main(["--course-dir", str(course), "verify"]) == 2
    assert capsys.readouterr().err == f"error: {caught.value}\n"


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
