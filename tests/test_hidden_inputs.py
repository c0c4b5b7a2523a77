"""Hidden inputs drawn per submission: what a student learns of one grading's hidden inputs
is worthless at the next.

The grader draws a seed per submission (:func:`course.grading.execution.grade.hidden_seed`)
and tells both halves of a hidden test; :func:`course.observe.hidden_inputs` draws the same
values in each. The attacks are a student's: a submission that hard-codes the answers a
feedback page named, and one that makes its kernel draw inputs it knows the answers to.
"""

from __future__ import annotations

import pytest

from course import observe
from course.grading.authoring.build import generate_all
from course.grading.authoring.scripts import build, dumps
from course.grading.execution import grade, judge
from course.grading.results import model
from course.grading.runner import CONFIG_FILE, read_notebook

from . import ROOT

DRAW = "h = hidden_inputs(x=range(1000, 1_000_000))"
JUDGE = f"""from course.observe import hidden_inputs

{DRAW}
assert rec["got"] == 2 * h.x, f"double({{h.x}}) must be {{2 * h.x}}, got {{rec['got']!r}}"
"""
SCRIPT = f'''# %% [markdown]
# # Doubling

# %% id="f" kind="solution"
def double(x):
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION

# %% id="f_doubles" kind="tests" points=1
assert double(2) == 4, "double(2) must be 4"
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

{DRAW}
rec = record(got=double(h.x))
### JUDGE
{JUDGE}### END HIDDEN TESTS
'''


WEAK = SCRIPT.replace("double(2) == 4", "double(1) == 2").replace(
    "range(1000, 1_000_000)", "range(1, 5)")
#: Doubles odd numbers only: the visible check (1) passes it, and a hidden draw catches it
#: only when the drawn number is even.
ODD_ONLY = """from course.grading.proofs.mutation import Mutant

MUTANTS = [Mutant(name="odd_only", bug="doubles odd numbers only", cell="f",
                  old="return 2 * x", new="return 2 * x if x % 2 else x",
                  loses={"f_doubles"})]
"""


def test_the_seed_sweep_finds_a_set_that_holds_for_some_values_only(tmp_path):
    from course.grading.proofs.verify import seed_sweep

    course = tmp_path / "course"
    (course / "source" / "seeded").mkdir(parents=True)
    (course / CONFIG_FILE).write_text((ROOT / CONFIG_FILE).read_text(encoding="utf-8"))
    (course / "source" / "seeded" / "seeded.ipynb").write_text(dumps(build(WEAK)))
    (course / "tests" / "mutants").mkdir(parents=True)
    (course / "tests" / "mutants" / "seeded.py").write_text(ODD_ONLY)
    generate_all(course, ["seeded"])
    odd = [seed for seed in range(1, 13) if _small(seed) % 2]
    assert odd and len(odd) < 12  # some seeds draw an odd number, some an even one
    failed = seed_sweep(course, ["seeded"], count=12, first=1, jobs=1)
    assert {(s.student, seed) for s, seed, _ in failed} == {("bug-odd_only", n) for n in odd}
    assert all("f_doubles: scored 1/1, must score 0" in p[0] for _, _, p in failed), failed


def _small(seed: int) -> int:
    with observe.seeded(seed):
        return observe.hidden_inputs(x=range(1, 5)).x


def _x(seed: int) -> int:
    with observe.seeded(seed):
        return observe.hidden_inputs(x=range(1000, 1_000_000)).x


def test_both_halves_draw_the_same_and_the_seed_is_put_back():
    observe.use_seed(0)
    assert _x(11) == _x(11) != _x(12)
    assert observe.hidden_seed() == 0
    judge.run(JUDGE, {"got": 2 * _x(11)}, "c", seed=11)
    with pytest.raises(judge.JudgeFailed, match=r"double\(.?\d+.?\) must be"):
        judge.run(JUDGE, {"got": 2 * _x(11)}, "c", seed=12)
    with pytest.raises(judge.JudgeFailed, match="ran past"):
        judge.run("while True:\n    pass\nassert rec", {}, "c", seconds=0.2, seed=13)
    assert observe.hidden_seed() == 0


def test_draws_depend_on_the_names_not_their_order():
    with observe.seeded(5):
        a = observe.hidden_inputs(x=range(10**6), y=range(10**6))
        b = observe.hidden_inputs(y=range(10**6), x=range(10**6))
        c = observe.hidden_inputs(x=range(10**6), z=range(10**6))
    assert (a.x, a.y) == (b.x, b.y) and a.x != c.x


def test_each_submission_and_each_grading_draws_its_own_seed():
    one = grade.hidden_seed(b"a", "ada", "lab")
    assert one == grade.hidden_seed(b"a", "ada", "lab")
    assert len({one, grade.hidden_seed(b"b", "ada", "lab"), grade.hidden_seed(b"a", "bob", "lab"),
                grade.hidden_seed(b"a", "ada", "lab2")}) == 4


ANSWERS = {
    "good": "def double(x):\n    return 2 * x\n",
    # Reads its hidden input off its feedback page, then answers exactly that.
    "hardcoded": "def double(x):\n    return {{2: 4, {x}: {answer}}}.get(x, 0)\n",
    # Makes its kernel draw an input it knows the answer to, whatever the seed.
    "reseeded": """import course.observe
from types import SimpleNamespace
course.observe.hidden_inputs = lambda **k: SimpleNamespace(x={x})
def double(x):
    return {{2: 4, {x}: {answer}}}.get(x, 0)
""",
}


@pytest.mark.slow
def test_an_answer_copied_from_one_gradings_feedback_scores_nothing_at_the_next(tmp_path):
    course = tmp_path / "course"
    (course / "source" / "seeded").mkdir(parents=True)
    (course / CONFIG_FILE).write_text((ROOT / CONFIG_FILE).read_text(encoding="utf-8"))
    (course / "source" / "seeded" / "seeded.ipynb").write_text(dumps(build(SCRIPT)))
    generate_all(course, ["seeded"])
    release = read_notebook(course / "release" / "seeded" / "seeded.ipynb")

    def submit(student: str, code: str) -> None:
        nb = release.copy()
        nb.cells = [c.copy() for c in release.cells]
        [answer] = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {})
                    .get("grade_id") == "f"]
        answer.source = code
        target = course / "submitted" / student / "seeded" / "seeded.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        import nbformat

        nbformat.write(nb, target)

    def scores(salt: bytes) -> dict[str, tuple[float, int, set[str]]]:
        runs = grade.autograde(course, [(s, "seeded") for s in ANSWERS], jobs=2,
                               progress=False, salt=salt)
        assert all(r.ok for r in runs), [r.error for r in runs]
        seeds = {r.student: r.seed for r in runs}
        return {row.student: (row.auto_score, seeds[row.student], row.lost)
                for row in model.scores(course)}

    for student in ANSWERS:  # the first submission: anything but the answer
        submit(student, "def double(x):\n    return 4\n")
    first = scores(b"first grading")
    for student, code in ANSWERS.items():  # what the first feedback page showed, answered
        x = _x(first[student][1])
        submit(student, code.format(x=x, answer=2 * x))
    same = scores(b"first grading")  # had the inputs stayed, the copies would score
    again = scores(b"second grading")
    assert {s: v[0] for s, v in first.items()} == {s: 0 for s in ANSWERS}
    assert same["good"][0] == again["good"][0] == 1
    assert same["hardcoded"][0] == 1 and again["hardcoded"][0] == 0
    # its own draw is not the judge's, whatever it makes its kernel draw
    assert "f_doubles" in again["reseeded"][2]
    assert len({v[1] for v in again.values()} | {v[1] for v in first.values()}) == 6
