"""nbgrader's exchange end to end on one machine, as a class uses it on a shared JupyterHub.

One instructor course folder, one exchange folder, two students with their own home folder
(HOME and working directory) and the student copy's configuration on JUPYTER_CONFIG_PATH,
as a JupyterHub gives each student server. The real commands run in order:
``release_assignment``, ``fetch_assignment`` per student, ``submit`` (Bob twice, with a
different answer the second time), ``collect``, the course's own ``course grade`` and
``course feedback``, ``release_feedback``, ``fetch_feedback`` per student. nbgrader's apps
run inside the test process with each user's environment and folder (``nbgrader_apps``);
grading runs in sandboxed kernels as ``course grade`` always does.

On a hub each student is their own Unix account and nbgrader takes the student id from it.
Here everyone is one account, so each home holds the one setting that stands for the account
name (``c.CourseDirectory.student_id``), and ``collect`` skips its owner check (every
submission is owned by the one account that runs the test).
"""

from __future__ import annotations

import datetime
import stat
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from course.grading.authoring import export
from course.grading.cli import main
from course.grading.execution.grade import submitted_at
from course.grading.proofs.mutation import load_mutants, submission
from course.grading.results.model import scores
from course.grading.runner import CONFIG_FILE, nbgrader_env, scratch_course

from . import ROOT
from .nbgrader_apps import run_nbgrader, student_env

LAB = "lab01_tool_loop"
COURSE_ID = "owning-the-agent-loop"
STUDENTS = ("alice", "bob")
BUG = "split_results"  # Bob's second answer: each tool result in its own user message


def _course(*args: str) -> None:
    """``python -m course ARGS``, the instructor's own command line."""
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(map(str, a))))
        code = main(list(args))
    assert code == 0, "\n".join(lines)


@dataclass
class Flow:
    course: Path
    exchange: Path
    homes: dict[str, Path]
    bob_first: Path  # Bob's first answer, as he wrote it
    listed: str  # `nbgrader list` as Alice saw it before fetching


@pytest.fixture(scope="module")
def flow(tmp_path_factory) -> Flow:
    base = tmp_path_factory.mktemp("exchange")
    exchange = base / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)  # nbgrader's exchange must exist and be writable by everyone

    # The instructor: a course folder whose config names the exchange, released as usual.
    course = scratch_course(ROOT, [LAB], base=base)
    with (course / CONFIG_FILE).open("a", encoding="utf-8") as fh:
        fh.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
    teacher = {**nbgrader_env(), "HOME": str(base)}
    run_nbgrader(course, teacher, "generate_assignment", LAB, "--force")  # `course release`
    run_nbgrader(course, teacher, "release_assignment", LAB)

    # The student copy takes the exchange from the instructor's configuration.
    copy = base / "student-copy"
    export.export_student(ROOT, copy, exchange=export.configured_exchange(course))

    homes, envs = {}, {}
    for s in STUDENTS:
        homes[s] = base / "home" / s
        homes[s].mkdir(parents=True)
        (homes[s] / CONFIG_FILE).write_text(f"c.CourseDirectory.student_id = {s!r}\n",
                                            encoding="utf-8")
        envs[s] = student_env(homes[s], copy)
    listed = run_nbgrader(homes["alice"], envs["alice"], "list")
    for s in STUDENTS:
        run_nbgrader(homes[s], envs[s], "fetch_assignment", LAB)

    source = nbformat.read(course / "source" / LAB / f"{LAB}.ipynb", as_version=4)
    bug = next(m for m in load_mutants(ROOT / "tests" / "mutants" / f"{LAB}.py")
               if m.name == BUG)

    def answer(student: str, mutant=None) -> Path:
        path = homes[student] / LAB / f"{LAB}.ipynb"
        fetched = nbformat.read(path, as_version=4)
        nbformat.write(submission(fetched, source, mutant), path)
        run_nbgrader(homes[student], envs[student], "submit", LAB)
        return path

    answer("alice")
    bob_first = base / "bob-first.ipynb"
    bob_first.write_bytes(answer("bob").read_bytes())
    answer("bob", bug)  # Bob changes his answer and submits again

    # A planted link in Alice's latest submission in the exchange, to a file of the
    # instructor's, and a link cycle: collect must take neither.
    inbound = exchange / COURSE_ID / "inbound"
    latest = sorted(p for p in inbound.iterdir() if p.name.startswith("alice+"))[-1]
    (latest / "stolen.ipynb").symlink_to(course / "source" / LAB / f"{LAB}.ipynb")
    (latest / "loop").symlink_to(".")
    run_nbgrader(course, teacher, "collect", LAB, "--ExchangeCollect.check_owner=False")
    _course("--course-dir", str(course), "grade", LAB, "-j", "2")
    _course("--course-dir", str(course), "feedback", LAB)
    run_nbgrader(course, teacher, "release_feedback", LAB)
    for s in STUDENTS:
        run_nbgrader(homes[s], envs[s], "fetch_feedback", LAB)
    return Flow(course, exchange, homes, bob_first, listed)


def _inbound(flow: Flow, student: str) -> list[str]:
    """Timestamps of a student's submissions in the exchange, oldest first."""
    names = (flow.exchange / COURSE_ID / "inbound").iterdir()
    return sorted(n.name.split("+")[2] for n in names if n.name.startswith(f"{student}+"))


@pytest.mark.slow
def test_the_student_copy_finds_the_released_assignment(flow):
    assert f"{COURSE_ID} {LAB}" in flow.listed, flow.listed
    assert "does not exist" not in flow.listed


@pytest.mark.slow
def test_collect_takes_each_students_latest_submission(flow):
    assert len(_inbound(flow, "alice")) == 1
    first, latest = _inbound(flow, "bob")
    assert first < latest
    collected = flow.course / "submitted" / "bob" / LAB
    assert (collected / "timestamp.txt").read_text(encoding="utf-8").strip() == latest
    kept = nbformat.read(collected / f"{LAB}.ipynb", as_version=4)
    assert kept != nbformat.read(flow.bob_first, as_version=4), "collect kept Bob's first answer"


@pytest.mark.slow
def test_collect_follows_no_link_planted_in_the_exchange(flow):
    taken = flow.course / "submitted" / "alice" / LAB
    assert (taken / f"{LAB}.ipynb").is_file()
    assert not (taken / "stolen.ipynb").exists() and not (taken / "loop").exists()
    assert not [p for p in taken.rglob("*") if p.is_symlink()]


@pytest.mark.slow
def test_the_latest_answer_is_the_one_graded(flow):
    rows = {r.student: r for r in scores(flow.course) if r.assignment == LAB}
    assert set(rows) == set(STUDENTS)
    alice, bob = rows["alice"], rows["bob"]
    assert alice.auto_score == alice.auto_max > 0, "the solution lost points"
    bug = next(m for m in load_mutants(ROOT / "tests" / "mutants" / f"{LAB}.py")
               if m.name == BUG)
    lost = {c.grade_id for c in bob.cells if c.auto and (c.score or 0) < c.max_score}
    # Bob's first answer was the solution: had it been graded, he would have lost nothing.
    assert lost == set(bug.loses), f"Bob lost {sorted(lost)}; his last answer loses {bug.loses}"
    assert bob.auto_score < alice.auto_score


@pytest.mark.slow
def test_the_gradebook_records_when_the_graded_answer_was_submitted(flow):
    from nbgrader.api import Gradebook
    from nbgrader.utils import parse_utc

    with Gradebook(f"sqlite:///{flow.course / 'gradebook.db'}") as gb:
        for s in STUDENTS:
            got = gb.find_submission(LAB, s).timestamp
            assert got == parse_utc(_inbound(flow, s)[-1]).replace(tzinfo=None), (s, got)


@pytest.mark.slow
def test_each_student_fetches_only_their_own_feedback(flow):
    pages = {s: (flow.course / "feedback" / s / LAB / f"{LAB}.html").read_bytes()
             for s in STUDENTS}
    assert pages["alice"] != pages["bob"]
    for s in STUDENTS:
        fetched = sorted((flow.homes[s] / LAB / "feedback").rglob("*.html"))
        # one page, filed under the timestamp of the submission that was graded
        assert [p.parent.name for p in fetched] == _inbound(flow, s)[-1:], fetched
        assert fetched[0].read_bytes() == pages[s]
        other = next(o for o in STUDENTS if o != s)
        for p in flow.homes[s].rglob("*"):
            assert not (p.is_file() and p.read_bytes() == pages[other]), (
                f"{s} holds {other}'s feedback at {p}")


@pytest.mark.slow
def test_released_feedback_cannot_be_listed_by_other_users(flow):
    """Pages in the exchange are named by a hash of each submission's secret, which only the
    submitter's cache holds; the folder is not listable, so no one finds another's page."""
    folder = flow.exchange / COURSE_ID / "feedback"
    assert len(list(folder.glob("*.html"))) == len(STUDENTS)
    mode = stat.S_IMODE(folder.stat().st_mode)
    assert not mode & (stat.S_IRGRP | stat.S_IROTH), oct(mode)
    names = " ".join(p.name for p in folder.iterdir())
    assert not any(s in names for s in STUDENTS)


# -- the student copy's exchange setting (fast: no nbgrader process) ----------------------


def _exchange_of(config_text: str, tmp: Path) -> str | None:
    (tmp / CONFIG_FILE).write_text(config_text, encoding="utf-8")
    cfg = PyFileConfigLoader(CONFIG_FILE, path=str(tmp)).load_config()
    return cfg.Exchange.root if "root" in cfg.Exchange else None


def test_student_config_names_the_exchange_when_one_is_given(tmp_path):
    assert _exchange_of(export.student_config("/srv/nbgrader/exchange"), tmp_path) == \
        "/srv/nbgrader/exchange"


def test_student_config_without_an_exchange_says_what_to_set(tmp_path):
    text = export.student_config(None)
    assert _exchange_of(text, tmp_path) is None
    assert "c.Exchange.root" in text and "does not exist" in text


def test_export_without_an_exchange_says_what_students_do_not_what_is_missing(tmp_path, capsys):
    """Issue 28: `course export` ended with "no nbgrader exchange configured", which reads
    as an error when a course simply runs without one."""
    assert main(["--course-dir", str(ROOT), "export", str(tmp_path / "copy")]) == 0
    out = capsys.readouterr().out
    assert "students open the notebooks in release/" in out
    assert "no nbgrader exchange configured" not in out


def test_export_takes_the_exchange_from_the_instructor_config(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / CONFIG_FILE).write_text('c = get_config()\nc.Exchange.root = "/srv/x"\n',
                                      encoding="utf-8")
    assert export.configured_exchange(course) == "/srv/x"
    assert export.configured_exchange(ROOT) is None, (
        "the shipped config must not point students at a folder nobody created")


def test_submitted_at_reads_nbgraders_timestamp_and_tolerates_a_bad_one(tmp_path):
    assert submitted_at(tmp_path) is None
    stamp = tmp_path / "timestamp.txt"
    stamp.write_text("2026-12-01 04:11:09.123456 UTC\n", encoding="utf-8")
    assert submitted_at(tmp_path) == datetime.datetime(2026, 12, 1, 4, 11, 9, 123456)
    for bad in ("", "not a time"):
        stamp.write_text(bad, encoding="utf-8")
        assert submitted_at(tmp_path) is None


def test_export_command_writes_the_exchange_it_is_given(tmp_path, capsys):
    target = tmp_path / "copy"
    assert main(["--course-dir", str(ROOT), "export", str(target), "--exchange", "/srv/ex"]) == 0
    assert "its nbgrader exchange: /srv/ex" in capsys.readouterr().out
    for config in (target / CONFIG_FILE, target / export.LAB_CONFIG_DIR / CONFIG_FILE):
        assert _exchange_of(config.read_text(encoding="utf-8"), tmp_path) == "/srv/ex"
