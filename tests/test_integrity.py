"""Course integrity through real nbgrader: every hidden test is honest.

* the solution gets full marks, the untouched release scores 0 on every autograded cell;
* every mutant loses exactly the cells named for its bug and keeps every other point;
* source/, release/ and solutions/ are in sync with what generates them;
* nothing secret leaks, metadata is valid, solutions write nothing to stderr.
"""

from __future__ import annotations

import shutil

import pytest

from course.grading import runner
from course.grading.authoring import build, export, integrity, markers
from course.grading.proofs import mutation
from course.grading.proofs.mutation import load_mutants
from course.grading.proofs.verify import grade_samples, judge_cells, more_solutions, quick_cells

from . import ROOT

ASSIGNMENTS = runner.assignments(ROOT)
#: Every sample draws its own hidden inputs (quick_cells gives each its own seed), and each
#: solution is run twice more, under other seeds: it must score full marks under all.
SAMPLES = [*(s for a in ASSIGNMENTS for s in mutation.samples(ROOT, a, "all")),
           *more_solutions(ASSIGNMENTS)]
#: Graded through the real grader (sandboxed kernels, nbgrader's gradebook): the solution,
#: the stub and the first seeded bug of every notebook. Every sample, these included, is
#: also judged from quick runs.
REAL = [s for a in ASSIGNMENTS for s in mutation.samples(ROOT, a, "first")]


def _id(s: mutation.Sample) -> str:
    return f"{s.assignment}-{s.student}"


def _graded_cells(assignment: str) -> set[str]:
    """The grade ids of the autograded cells of ``assignment``'s source notebooks."""
    return {c.metadata["nbgrader"]["grade_id"]
            for path in sorted((ROOT / "source" / assignment).glob("*.ipynb"))
            for c in runner.read_notebook(path).cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")}


@pytest.fixture(scope="session")
def graded_samples(tmp_path_factory):
    """The REAL samples graded in one scratch course, which is kept: its ``release/`` is
    also the fresh generation the release check compares with."""
    found, course = grade_samples(ROOT, ASSIGNMENTS, mutants="first",
                                  keep=tmp_path_factory.mktemp("integrity"))
    return found, course


@pytest.fixture(scope="session")
def verdicts(graded_samples):
    found, _ = graded_samples
    return {(v.sample.assignment, v.sample.student): v for v in found}


@pytest.fixture(scope="session")
def quick():
    """Every sample's autograded cells, ``grade_id -> (score, max)``, from quick runs."""
    cells = quick_cells(ROOT, SAMPLES, jobs=2)
    return {(s.assignment, s.student): c for s, c in zip(SAMPLES, cells, strict=True)}


def test_there_are_assignments():
    assert "lab01_tool_loop" in ASSIGNMENTS


# The real grader and the quick runs are held to one expectation: over exactly the
# notebook's autograded cells, every cell at 0 where the sample's bug must lose it and at
# full points everywhere else. A sample that passes both tests therefore scored the same on
# every cell under both engines; the two fixtures need not meet, so they are built on
# separate xdist workers.


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES, ids=map(_id, SAMPLES))
def test_sample_scores_as_it_must(quick, sample):
    cells = quick[(sample.assignment, sample.student)]
    assert set(cells) == _graded_cells(sample.assignment), "a graded cell did not run"
    problems = judge_cells(sample, cells)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("sample", REAL, ids=map(_id, REAL))
def test_the_real_grader_scores_as_it_must(verdicts, sample):
    v = verdicts[(sample.assignment, sample.student)]
    assert v.ok, "\n".join(v.problems)
    real = {c.grade_id for r in v.scores for c in r.cells if c.auto}
    assert real == _graded_cells(sample.assignment), "the gradebook lacks a graded cell"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_assignment_has_mutants(assignment):
    mutants = load_mutants(ROOT / "tests" / "mutants" / f"{assignment}.py")
    assert mutants, f"{assignment} has no mutants in tests/mutants/{assignment}.py"
    for m in mutants:
        assert m.loses, f"mutant {m.name} names no cell that must catch it"


def test_sources_are_built_from_authoring():
    assert build.build_sources(ROOT, check=True) == []


def test_static_integrity():
    problems = integrity.check_tree(ROOT)
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.slow
def test_release_is_a_fresh_generation(graded_samples):
    _, course = graded_samples
    assert build.release(ROOT, check=True, generated=course) == []


@pytest.mark.slow
def test_solutions_are_a_fresh_execution():
    assert build.build_solutions(ROOT, check=True) == []


@pytest.mark.slow
def test_a_solution_prints_nothing_of_the_machine_it_ran_on(tmp_path, monkeypatch):
    # A notebook that makes temporary folders once printed its root's length, so the
    # committed solution changed with TMPDIR; run those notebooks under a deeper one.
    users = [p.parent.name for p in sorted((ROOT / "authoring").glob("*/*.py"))
             if "tempfile" in p.read_text(encoding="utf-8")]
    assert users, "no notebook makes a temporary folder: this test checks nothing"
    deep = tmp_path / "a-much-longer-temporary-folder-than-usual"
    deep.mkdir()
    monkeypatch.setenv("TMPDIR", str(deep))
    assert build.build_solutions(ROOT, users, check=True) == []


def test_source_notebooks_carry_no_outputs():
    for path in sorted((ROOT / "source").rglob("*.ipynb")):
        for cell in runner.read_notebook(path).cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, path


# -- the checks themselves can fail ------------------------------------------------------


@pytest.fixture
def tree(tmp_path):
    """A copy of the course tree (without the heavy generated bits) to damage."""
    copy = tmp_path / "course"
    for name in ("source", "release", "course", "authoring"):
        shutil.copytree(ROOT / name, copy / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy2(ROOT / "nbgrader_config.py", copy / "nbgrader_config.py")
    return copy


def test_leak_check_catches_a_solution_line_in_course(tree):
    nb = runner.read_notebook(tree / "source" / "lab01_tool_loop" / "lab01_tool_loop.ipynb")
    secret = sorted(integrity.secret_lines(nb))[0]
    (tree / "course" / "leaky.py").write_text(f"# helper\n    {secret}\n")
    problems = [str(p) for p in integrity.check_tree(tree)]
    assert any("course/leaky.py" in p and "reveals a line" in p for p in problems), problems


PLANTED_LOOP = '''
def drive_scenario(task, catalogue, run_one, *, api, limit=30):
    """A harness helper that is really Lab 1's answer with every name changed."""
    convo = [{"role": "user", "content": task}]
    for _lap in range(limit):
        answer = api.messages.create(
            model=MODEL, max_tokens=2048, tools=catalogue, messages=convo)
        if answer.stop_reason == "max_tokens":
            raise RuntimeError("cut short")
        if answer.stop_reason == "refusal":
            return "no."
        if answer.stop_reason != "tool_use":
            return "".join(part.text for part in answer.content if part.type == "text")
        convo.append({"role": "assistant", "content": answer.content})
        replies = []
        for part in answer.content:
            if part.type != "tool_use":
                continue
            try:
                got = run_one(part.name, part.input)
                body, bad = ("" if got is None else str(got)), False
            except Exception as err:
                body, bad = f"Error: {type(err).__name__}: {err}", True
            replies.append({"type": "tool_result", "tool_use_id": part.id,
                            "content": body, "is_error": bad})
        convo.append({"role": "user", "content": replies})
    raise RuntimeError("too many laps")
'''


def test_shape_check_catches_a_renamed_copy_of_the_lab01_loop(tree):
    (tree / "course" / "worlds" / "helpers.py").write_text(PLANTED_LOOP)
    problems = [str(p) for p in integrity.check_tree(tree)]
    hits = [p for p in problems if p.startswith("course/worlds/helpers.py") and
            "lab01_tool_loop.ipynb cell agent" in p]
    assert hits, problems
    assert not any("reveals a line" in p and "helpers.py" in p for p in problems), (
        "the planted copy shares no line with the solution; only the shape check can see it")


def test_shape_check_catches_the_reworded_loops_the_worlds_once_held(tree):
    """The old ``run_guarded`` and ``run_audit`` reworded Lab 1's loop; lines never matched."""
    import subprocess

    for name in ("loops", "budget"):
        old = subprocess.run(["git", "show", f"e307061:course/worlds/{name}.py"], cwd=ROOT,
                             capture_output=True, text=True)
        if old.returncode != 0:
            pytest.skip("this clone has no history before the scenario harness")
        (tree / "course" / "worlds" / f"old_{name}.py").write_text(old.stdout)
    problems = [str(p) for p in integrity.check_tree(tree)]
    assert any(p.startswith("course/worlds/old_loops.py") and "has the shape of" in p
               for p in problems), problems


def test_shape_check_ignores_the_instructor_side(tree):
    (tree / "course" / "grading").mkdir(exist_ok=True)
    (tree / "course" / "grading" / "helpers.py").write_text(PLANTED_LOOP)
    assert not any("has the shape of" in str(p) for p in integrity.check_tree(tree))


def test_leak_check_catches_a_hidden_test_in_release(tree):
    src = runner.read_notebook(tree / "source" / "lab01_tool_loop" / "lab01_tool_loop.ipynb")
    hidden = next(c.source for c in src.cells if markers.HIDDEN_BEGIN in c.source)
    released = tree / "release" / "lab01_tool_loop" / "lab01_tool_loop.ipynb"
    nb = runner.read_notebook(released)
    nb.cells[-1].source = hidden
    import nbformat

    nbformat.write(nb, released)
    assert any("reveals a line" in str(p) for p in integrity.check_tree(tree))


def test_metadata_check_catches_duplicate_ids_and_zero_points(tree):
    path = tree / "source" / "lab01_tool_loop" / "lab01_tool_loop.ipynb"
    nb = runner.read_notebook(path)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    graded[1].metadata["nbgrader"]["grade_id"] = graded[0].metadata["nbgrader"]["grade_id"]
    graded[2].metadata["nbgrader"]["points"] = 0
    problems = [p.what for p in integrity.check_source(path, nb)]
    assert any("repeats cell" in p for p in problems)
    assert any("needs positive points" in p for p in problems)


def _test_cells(lines: list[str]) -> list[tuple[int, str]]:
    """(index, grade id) of every tests cell header of a percent script's lines."""
    return [(i, ln.split('id="', 1)[1].split('"', 1)[0]) for i, ln in enumerate(lines)
            if ln.startswith("# %% ") and 'kind="tests"' in ln]


def test_judge_errors_name_the_authoring_file_line_and_cell(tree):
    """A broken judge is reported at the script line to edit, not at the generated cell
    (before: ``source/lab01_tool_loop/lab01_tool_loop.ipynb cell 8``)."""
    rel = "authoring/lab01_tool_loop/lab01_tool_loop.py"
    lines = (tree / rel).read_text(encoding="utf-8").split("\n")
    (first_at, first), (second_at, second) = _test_cells(lines)[:2]
    # In the second cell, drop its '### JUDGE' line: the whole hidden region would then run
    # in the kernel, and the place to fix is its '### BEGIN HIDDEN TESTS' line.
    judge_at = next(i for i in range(second_at, len(lines)) if lines[i] == "### JUDGE")
    begin_at = max(i for i in range(second_at, judge_at)
                   if lines[i] == "### BEGIN HIDDEN TESTS")
    del lines[judge_at]
    # In the first cell, a judge line that reads a name only the kernel has.
    judge_at = next(i for i in range(first_at, len(lines)) if lines[i] == "### JUDGE")
    lines.insert(judge_at + 2, 'assert _b == 1, "reads the kernel"')
    (tree / rel).write_text("\n".join(lines), encoding="utf-8")
    build.build_sources(tree)
    path = tree / "source" / "lab01_tool_loop" / "lab01_tool_loop.ipynb"
    found = [str(p) for p in integrity.check_source(path, runner.read_notebook(path), tree)]
    reads = (f"{rel}:{judge_at + 3} (cell {first!r}): the judge reads _b, which only the "
             "kernel has")
    # The inserted line above moved the second cell down by one.
    legacy = f"{rel}:{begin_at + 2} (cell {second!r}): the hidden region has no '### JUDGE' line"
    assert any(p.startswith(reads) for p in found), found
    assert any(p.startswith(legacy) for p in found), found
    assert any("put '### JUDGE' after the line that binds 'rec'" in p for p in found), found


def test_outputs_in_source_are_reported(tree):
    path = tree / "source" / "lab01_tool_loop" / "lab01_tool_loop.ipynb"
    nb = runner.read_notebook(path)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.execution_count = 3
    assert any("outputs or an execution count" in p.what for p in integrity.check_source(path, nb))


@pytest.mark.slow
def test_release_check_notices_a_hand_edit(tree):
    released = tree / "release" / "lab01_tool_loop" / "lab01_tool_loop.ipynb"
    released.write_text(released.read_text().replace("Lab 1", "Lab One", 1))
    assert build.release(tree, ["lab01_tool_loop"], check=True) == [f"{released} is out of date"]


def test_instructor_notes_stay_out_of_release_and_in_solutions():
    from course.grading.authoring.scripts import INSTRUCTOR_TAG

    checked = 0
    for a in ASSIGNMENTS:
        src = runner.read_notebook(ROOT / "source" / a / f"{a}.ipynb")
        notes = [c.source for c in src.cells if INSTRUCTOR_TAG in c.metadata.get("tags", [])]
        released = " ".join(c.source for c in runner.read_notebook(
            ROOT / "release" / a / f"{a}.ipynb").cells)
        solved = " ".join(c.source for c in runner.read_notebook(
            ROOT / "solutions" / a / f"{a}.ipynb").cells)
        for note in notes:
            lines = [ln for ln in note.splitlines() if len(ln.strip()) > 30]
            assert lines, "an instructor note with nothing to check"
            for line in lines:
                assert line not in released, f"{a}: instructor note reached release/: {line!r}"
                assert line in solved, f"{a}: instructor note missing from solutions/: {line!r}"
            checked += 1
    assert checked >= 5, f"only {checked} instructor notes found; Lecture 4 should carry several"


def test_student_export_holds_no_answer_and_no_hidden_test(tmp_path):
    files = export.export_student(ROOT, tmp_path / "student")
    names = {p.relative_to(tmp_path / "student").parts[0] for p in files}
    assert names == {"release", "course", "pyproject.toml", "environment.yml", "dev", "README.md",
                     ".jupyter", "nbgrader_config.py"}
    assert not any(p.relative_to(tmp_path / "student").parts[:2] == ("course", "grading")
                   for p in files), "the instructor side of course/ went to students"
    config = (tmp_path / "student" / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "grading" not in config and 'transport = "ipc"' in config
    import tomllib

    mine = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    theirs = tomllib.loads((tmp_path / "student" / "pyproject.toml").read_text(encoding="utf-8"))
    assert mine["project"]["scripts"]["course"].startswith("course.grading")
    assert "scripts" not in theirs["project"], "the copy declares a command it cannot run"
    assert {k: v for k, v in mine["project"].items() if k != "scripts"} == theirs["project"]
    assert mine["tool"] == theirs["tool"]
    secrets: set[str] = set()
    for a in ASSIGNMENTS:
        secrets |= integrity.secret_lines(
            runner.read_notebook(ROOT / "source" / a / f"{a}.ipynb"))
    assert secrets
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".ipynb":
            text = "\n".join(c.source for c in runner.read_notebook(path).cells)
        found = {" ".join(x.split()) for x in text.split("\n")} & secrets
        assert not found, f"{path} reveals {sorted(found)[:2]}"
    with pytest.raises(runner.PipelineError, match="not empty"):
        export.export_student(ROOT, tmp_path / "student")
