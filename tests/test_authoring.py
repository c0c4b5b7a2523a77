"""The percent-script format: what it builds, and the errors it gives."""

from __future__ import annotations

import pytest

from course.grading.authoring.markers import answer_text
from course.grading.authoring.scripts import AuthoringError, build, dumps, parse
from course.grading.proofs.mutation import Mutant, MutantError, submission

SCRIPT = '''# %% [markdown]
# # Title
# Some *prose*.

# %% id="f" kind="solution"
def f(x):
    """Double x."""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION

# %% id="f_doubles" kind="tests" points=2
assert f(2) == 4
### BEGIN HIDDEN TESTS
assert f(5) == 10
### END HIDDEN TESTS

# %% [markdown] id="why" kind="manual" points=1
# ### BEGIN SOLUTION
# Because.
# ### END SOLUTION

# %% [markdown] kind="instructor"
# Ask the room.
'''


def test_build_sets_nbgrader_metadata():
    nb = build(SCRIPT)
    md, sol, test, manual, note = nb.cells
    assert md.cell_type == "markdown" and md.source == "# Title\nSome *prose*."
    assert sol.metadata["nbgrader"] == {"grade": False, "grade_id": "f", "locked": False,
                                        "schema_version": 3, "solution": True, "task": False}
    assert test.metadata["nbgrader"]["grade"] is True and test.metadata["nbgrader"]["points"] == 2
    assert test.metadata["nbgrader"]["locked"] is True
    assert manual.cell_type == "markdown" and manual.metadata["nbgrader"]["solution"] is True
    assert note.metadata["tags"] == ["instructor"] and "nbgrader" not in note.metadata
    assert [c.id for c in nb.cells] == ["cell-000", "f", "f_doubles", "why", "cell-004"]
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_build_is_deterministic():
    assert build(SCRIPT) == build(SCRIPT)


@pytest.mark.parametrize(("header", "message"), [
    ('# %% kind="solution"', "needs an id="),
    ('# %% id="x" kind="tests"', "needs positive points="),
    ('# %% id="x" kind="tests" points=0', "must be a finite positive number"),
    ('# %% id="x" kind="banana"', "is not one of"),
    ('# %% id="x" kind="solution" points=2', "only tests and manual cells carry points"),
    ('# %% id="x" kind="manual" points=1', "a manual answer is a markdown cell"),
    ('# %% [markdown] id="x" kind="tests" points=1', "is a code cell"),
    ('# %% id="has.dot" kind="solution"', "must match"),
    ("# %% color=red", "unknown header key"),
    ("# %% justaword", "expected key=value"),
    ('# %% id="x" kind="tests" points=two', "is not a JSON value"),
    ('# %% id="x" kind="tests" points=inf', "is not a JSON value"),
    ('# %% id="x" kind="tests" points=1e999', "must be a finite positive number"),
    ('# %% id="x" kind="tests" points=-1', "must be a finite positive number"),
    ('# %% id="x" kind="tests" points="2"', "must be a finite positive number"),
    ("# %% id=x kind=solution", "quote strings"),
    ('# %% id=3 kind="solution"', "must be a quoted string"),
    ('# %% id="x" id="y" kind="solution"', "given twice"),
])
def test_bad_headers_name_the_line(header, message):
    with pytest.raises(AuthoringError, match=message) as info:
        parse(f"# %%\nx = 1\n{header}\npass\n", "lab.py")
    assert str(info.value).startswith("lab.py:3:")


@pytest.mark.parametrize("kind, body, line, message", [
    ("solution", "def f():\n    ### BEGIN SOLUTION\n    return 1\n", 6,
     "the solution region opened here is never closed"),
    ("solution", "def f():\n    return 1\n    ### END SOLUTION\n", 7,
     "'### END SOLUTION' closes no open region"),
    ("tests", "assert f() == 1\n### JUDGE\nassert True\n", 6,
     "'### JUDGE' outside a hidden-test region"),
    ("tests", "assert f() == 1\nx = 2\n### END HIDDEN TESTS\n", 7,
     "'### END HIDDEN TESTS' closes no open region"),
    ("tests", "### BEGIN HIDDEN TESTS\n### BEGIN SOLUTION\n### END HIDDEN TESTS\n", 6,
     "inside the hidden region opened 1 line above; regions cannot nest"),
])
def test_a_broken_region_names_the_script_line_and_cell(kind, body, line, message):
    """nbgrader would refuse these cells later, naming the generated notebook's cell; the
    build refuses them first, naming the line of the authoring script to edit."""
    points = " points=1" if kind == "tests" else ""
    script = f'# %%\nx = 1\n\n# %% id="c" kind="{kind}"{points}\n{body}'
    with pytest.raises(AuthoringError, match=message) as info:
        build(script, "authoring/lab/lab.py")
    assert str(info.value).startswith(f"authoring/lab/lab.py:{line} (cell 'c'): "), info.value


def test_duplicate_ids_are_rejected():
    with pytest.raises(AuthoringError, match="already used at line 1"):
        parse('# %% id="a" kind="solution"\n# %% id="a" kind="tests" points=1\n')


def test_text_before_first_header_is_rejected():
    with pytest.raises(AuthoringError, match="before the first"):
        parse("x = 1\n# %%\n")


def test_submission_fills_answers_and_applies_mutants():
    src = build(SCRIPT)
    release = build(SCRIPT)
    for c in release.cells:
        if c.metadata.get("nbgrader", {}).get("solution"):
            c.source = "raise NotImplementedError()"
    good = submission(release, src)
    assert "return 2 * x" in good.cells[1].source and "BEGIN SOLUTION" not in good.cells[1].source
    bad = submission(release, src, Mutant("triple", "bug", "f", "2 * x", "3 * x", {"f_doubles"}))
    assert "return 3 * x" in bad.cells[1].source
    assert submission(release, src, answer=False).cells[1].source == "raise NotImplementedError()"
    with pytest.raises(MutantError, match="occurs 0 times"):
        submission(release, src, Mutant("nope", "bug", "f", "4 * x", "x", {"f_doubles"}))
    with pytest.raises(MutantError, match="no answer cell"):
        submission(release, src, Mutant("nope", "bug", "g", "x", "y", {"f_doubles"}))


MUTANTS_FILE = """from course.grading.proofs.mutation import Mutant

MUTANTS = [
    Mutant(name="triple", bug="triples", cell="f", old="2 * x", new="3 * x",
           loses={"f_doubles"}),
    Mutant(
        name="nope",
        bug="an edit of text the answer does not have",
        cell="f",
        old="4 * x",
        new="x",
        loses={"f_doubles"},
    ),
]
"""


def test_a_mutant_that_does_not_apply_names_its_file_line_and_fails_before_grading(
        tmp_path, monkeypatch):
    """Before: ``mutant 'nope': the text to replace occurs 0 times in cell 'f'`` with no
    file, and only after ``verify`` had generated a scratch course (about a minute)."""
    from course.grading.proofs import verify

    course = tmp_path / "course"
    (course / "source" / "demo").mkdir(parents=True)
    (course / "source" / "demo" / "demo.ipynb").write_text(dumps(build(SCRIPT)))
    (course / "nbgrader_config.py").write_text("")
    mutants = course / "tests" / "mutants" / "demo.py"
    mutants.parent.mkdir(parents=True)
    mutants.write_text(MUTANTS_FILE)
    line = MUTANTS_FILE.splitlines().index("    Mutant(") + 1

    def no_build(*args, **kwargs):
        raise AssertionError("the scratch course was generated before the mutants were checked")

    monkeypatch.setattr(verify, "generate_all", no_build)
    with pytest.raises(MutantError) as caught:
        verify.grade_samples(course, ["demo"])
    assert str(caught.value).startswith(
        f"{mutants}:{line}: mutant 'nope': the text to replace occurs 0 times in cell 'f' "
        "(it must occur exactly once"), caught.value


def test_answer_text_drops_only_marker_lines():
    assert answer_text("a\n    ### BEGIN SOLUTION\n    b\n    ### END SOLUTION") == "a\n    b"


def test_the_script_path_is_recorded_in_the_notebook():
    assert build(SCRIPT, "authoring/lab/lab.py").metadata["course"] == {
        "generated_from": "authoring/lab/lab.py"}


def test_jupytext_reads_every_authoring_script_into_the_cells_build_writes(root):
    """The scripts open as notebooks in JupyterLab (jupytext): same cells, same metadata."""
    jupytext = pytest.importorskip("jupytext")
    scripts = sorted((root / "authoring").glob("*/*.py"))
    assert scripts
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        ours = build(text, str(script))
        theirs = jupytext.reads(text, fmt="py:percent")
        assert len(theirs.cells) == len(ours.cells), script
        for mine, read in zip(ours.cells, theirs.cells, strict=True):
            assert read.cell_type == mine.cell_type, (script, mine.id)
            assert read.source.strip() == mine.source.strip(), (script, mine.id)
            meta = {k: v for k, v in read.metadata.items() if k in ("id", "kind", "points")}
            assert "incorrectly_encoded_metadata" not in read.metadata, (script, mine.id)
            grading = mine.metadata.get("nbgrader", {})
            if grading.get("grade_id"):
                assert meta.get("id") == grading["grade_id"], (script, mine.id)
            if "points" in grading:
                assert meta.get("points") == grading["points"], (script, mine.id)


def test_no_dollar_amount_in_prose_renders_as_maths():
    """Issue 28: "a stuck model, $0.50 a call, a $2.00 limit" rendered in JupyterLab as the
    maths "0.50acall, a2.00". A dollar sign before a digit in prose is written ``\\$``;
    code spans, fenced and indented code keep theirs."""
    import re

    import nbformat

    from . import ROOT

    found = []
    for path in sorted((ROOT / "source").glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            text = re.sub(r"(?ms)^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1`*\s*$", "", cell.source)
            text = re.sub(r"(?m)^(?: {4}|\t).*$", "", text)
            text = re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", "", text, flags=re.DOTALL)
            found += [f"{path.parent.name} cell {cell.get('id')}: {m.group(0)[:60]!r}"
                      for m in re.finditer(r"(?<!\\)\$\d[^\n]*", text)]
    assert not found, "write \\$ for a dollar amount in prose:\n" + "\n".join(found)
