"""Attacks a hostile student can make from inside a grading kernel, one test per category.

One scratch course with Lab 1 released. A good student is graded first; then a class of
attackers, each answer cell trying one thing; then another good student. Every attack
must get 0 points or a review flag, the good students keep exactly their grades, and no
instructor file changes. What each attacker saw from inside the sandbox is printed by its
answer cell and read back from the autograded notebook.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import site
import sqlite3
import time
from pathlib import Path

import nbformat
import pytest

from course.grading import runner
from course.grading.authoring import build
from course.grading.authoring.integrity import secret_lines
from course.grading.execution import grade
from course.grading.proofs.mutation import submission
from course.grading.results import model
from course.grading.results.feedback import own_lines, page_lines, scan_page

from . import ROOT

pytestmark = pytest.mark.slow

LAB = "lab01_tool_loop"
NB = f"{LAB}.ipynb"
SLEEP_MARK = "4242.5"  # the argument of the process the double-fork attack leaves behind


def _answer(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "agent")


def _solution_code(good) -> str:
    return _answer(good).source


ATTACKS = {
    # The course tree: the source notebook holds every solution and hidden test.
    "read_course_tree": '''
import glob, json, os
seen = [p for p in ("../../../source", "../../../release", "../../../solutions",
                    "../../../nbgrader_config.py", "{course}/source", "{course}/nbgrader_config.py",
                    "{repo}/source", "{repo}/authoring", "{repo}/tests")
        if os.path.exists(p)]
for base in ("/work", "/tmp", "/root", "/home", "{course}", "{repo}"):
    for dirpath, dirs, files in os.walk(base):
        if dirpath != os.getcwd():  # its own copy is the one it may see
            seen += [os.path.join(dirpath, f) for f in files if f == "{lab}.ipynb"]
print("SEEN:", seen)
for p in seen:
    if p.endswith(".ipynb"):
        nb = json.load(open(p))
        for c in nb["cells"]:
            if "def agent" in "".join(c["source"]):
                exec("".join(c["source"]))
''',
    # The gradebook: find it, open it, give everyone full marks.
    "write_gradebook": '''
import os, sqlite3
found = [p for p in ("../../../gradebook.db", "{course}/gradebook.db") if os.path.exists(p)]
for base in ("/work", "/tmp", "/root", "{course}"):
    for dirpath, dirs, files in os.walk(base):
        # nbgrader ships an empty test gradebook inside the environment; that one is public.
        found += [os.path.join(dirpath, f) for f in files
                  if f == "gradebook.db" and "site-packages" not in dirpath]
print("GRADEBOOKS:", found)
for p in found:
    db = sqlite3.connect(p)
    db.execute("UPDATE grade SET auto_score = 99, needs_manual_grade = 0")
    db.commit()
''',
    # A classmate's submission, to run their answer.
    "copy_classmate": '''
import glob, json
others = glob.glob("../../../submitted/*/{lab}/*.ipynb") + \\
    glob.glob("{course}/submitted/*/{lab}/*.ipynb") + glob.glob("/tmp/*/submitted/*/*/*.ipynb")
print("OTHERS:", others)
for p in others:
    for c in json.load(open(p))["cells"]:
        if "def agent" in "".join(c["source"]):
            exec("".join(c["source"]))
''',
    # A .pth file runs at every later Python start that uses this environment.
    "plant_pth": '''
import site, sys
for d in site.getsitepackages() + [sys.prefix]:
    try:
        open(d + "/zz_course_attack.pth", "w").write("import os\\n")
        print("PLANTED:", d)
    except OSError as exc:
        print("REFUSED:", type(exc).__name__)
''',
    # A double-forked process that outlives its kernel.
    "leave_process": '''
import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "{mark}"])
    os._exit(0)
print("FORKED")
''',
    # The network, around the course's own guard: the raw socket module.
    "network": '''
import _socket
s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
s.settimeout(3)
try:
    s.connect(("1.1.1.1", 80))
    print("NETWORK: connected")
except OSError as exc:
    print("NETWORK: refused", type(exc).__name__)
''',
    # Echo every cell's source (hidden tests included) through an IPython event hook.
    "echo_event_hook": '''
def _echo(info):
    print("ECHO", info.raw_cell)
get_ipython().events.register("pre_run_cell", _echo)
''',
    # Echo the source of each line of cell code as it runs, through a trace function
    # (library frames are skipped: echoing them adds nothing and runs past the time limit).
    "echo_settrace": '''
import linecache, sys
def _trace(frame, event, arg):
    if "ipykernel_" not in frame.f_code.co_filename:
        return None
    if event == "line":
        print("TRACE", linecache.getline(frame.f_code.co_filename, frame.f_lineno))
    return _trace
sys.settrace(_trace)
''',
    # Break the indentation of every later cell: syntax errors quote the hidden tests.
    "echo_syntax_error": '''
get_ipython().input_transformers_cleanup.append(lambda lines: ["  " + ln for ln in lines])
''',
    # Rewrite every test into a no-op, so each would pass.
    "rewrite_tests": '''
get_ipython().input_transformers_post.append(lambda lines: ["pass\\n"])
''',
    # Replace a builtin the tests rely on.
    "replace_builtin": '''
import builtins
builtins.all = lambda iterable: True
''',
    # Monkeypatch the support package the tests call.
    "patch_course_module": '''
import course.fakes
def _quiet(*args, **kwargs):
    return None
course.fakes.FakeAPI.__init__ = _quiet
''',
    # Swallow every failing assertion.
    "swallow_errors": '''
get_ipython().set_custom_exc((AssertionError,), lambda *a, **k: None)
''',
}


#: Answers that do no real work and try to earn points anyway. Each must score no more than
#: CONTROL, a constant answer, and must do so on the judges alone: the score they would get
#: with any review flag cleared is compared, so no grade depends on the tamper probe.
CONTROL = '''
def agent(goal, tools, dispatch, *, client, max_steps=12):
    return "It is 14C and raining in Paris."
'''
FORGED_LOG = '''
import course.hub as _hub

_BODY = {"model": "claude-opus-5", "max_tokens": 1024, "tools": [],
         "messages": [{"role": "user", "content": "What is the weather?"}]}
_hub.RemoteFake.requests = property(lambda self: [dict(_BODY)])

def agent(goal, tools, dispatch, *, client, max_steps=12):
    fake = getattr(getattr(client._client, "_transport", None), "handler", None)
    if fake is not None and hasattr(fake, "requests"):
        fake.requests.append(dict(_BODY))
    raise RuntimeError("stopped: max_tokens")
'''
FORGERS = {
    "control": CONTROL,
    # The first output of each test cell is an execute_result "ok": nbgrader's own rule
    # stops at it, finds no number and gives full points.
    "displayhook": '''
import sys
def agent(goal, tools, dispatch, *, client, max_steps=12):
    sys.displayhook("ok")
    return "It is 14C and raining in Paris."
''',
    # IPython swallows BdbQuit with no traceback: the cell ends with no error.
    "bdbquit": '''
import bdb
def agent(goal, tools, dispatch, *, client, max_steps=12):
    raise bdb.BdbQuit()
''',
    # Read the running test's source through the caller's frame, then rewrite its names
    # (and any record) line by line so every `assert NAME == literal` holds; the trace
    # removes itself after each cell.
    "rewrite_frames": '''
import ast, linecache, sys

def _cell_frame():
    f = sys._getframe(2)
    while f is not None and "ipykernel_" not in f.f_code.co_filename:
        f = f.f_back
    return f

def _wanted(frame):
    want = {}
    try:
        tree = ast.parse("".join(linecache.getlines(frame.f_code.co_filename)))
    except SyntaxError:
        return want
    for node in ast.walk(tree):
        t = getattr(node, "test", None)
        if isinstance(node, ast.Assert) and isinstance(t, ast.Compare) \\
                and isinstance(t.left, ast.Name) and isinstance(t.comparators[0], ast.Constant):
            want[t.left.id] = t.comparators[0].value
    return want

def agent(goal, tools, dispatch, *, client, max_steps=12):
    frame = _cell_frame()
    if frame is None:
        return ""
    want = _wanted(frame)
    def tracer(f, event, arg):
        if f is frame and event == "line":
            f.f_globals.update(want)
            rec = f.f_globals.get("rec")
            if isinstance(rec, dict):
                rec.update({k: v for k, v in want.items() if k in rec})
        return tracer
    frame.f_trace = tracer
    sys.settrace(lambda *a: None)
    def _off(*a):
        sys.settrace(None)
        get_ipython().events.unregister("post_run_cell", _off)
    get_ipython().events.register("post_run_cell", _off)
    return want.get("out", "It is 14C and raining in Paris.")
''',
    # Blind the tamper probe: shadow the exec its expression calls, and drop every error
    # message on the kernel's own Session, reporting each reply as ok.
    "blind_probe": '''
import builtins
_real_exec = builtins.exec

def exec(source, globals=None, locals=None, /):
    _real_exec(source, globals, locals)
    if isinstance(globals, dict) and isinstance(globals.get("_r"), dict):
        globals["_r"]["found"] = []

_session = get_ipython().kernel.session
_send = _session.send

def _quiet(stream, msg_or_type, content=None, *args, **kwargs):
    kind = msg_or_type if isinstance(msg_or_type, str) else msg_or_type["header"]["msg_type"]
    if kind == "error":
        return None
    if kind == "execute_reply" and isinstance(content, dict):
        content = dict(content, status="ok")
    return _send(stream, msg_or_type, content, *args, **kwargs)

_session.send = _quiet

def agent(goal, tools, dispatch, *, client, max_steps=12):
    return "It is 14C and raining in Paris."
''',
    # Call no model and forge the request log instead: one plausible body appended to the
    # fake behind the client (a fake built in the kernel), and every served fake's log read
    # as that one body. Raising RuntimeError at once is what the max_tokens cell wants, so
    # with a kernel-side log that cell's visible and hidden checks would all pass.
    "forge_request_log": FORGED_LOG,
}
#: A correct answer that copies every cell it can see into an earlier output, base64
#: encoded (In[-1] holds the running test cell), and into its own prints.
LEAK_MARK = "LEAK64:"
LEAKER = '''
import base64
from IPython.display import display, update_display
display("placeholder", display_id="leak")

def agent(goal, tools, dispatch, *, client, max_steps=12):
    seen = "\\n".join(get_ipython().user_ns["In"])
    blob = "LEAK64:" + base64.b64encode(seen.encode()).decode()
    update_display(blob, display_id="leak")
    print(blob)
    return _agent(goal, tools, dispatch, client=client, max_steps=max_steps)
'''
#: A correct answer whose outputs, written answer and extra cells try to run script in the
#: instructor's browser (feedback page, formgrader).
XSS = "document.title='XSS'"
_XSS_HTML = (f'<img src=x onerror="{XSS}"><script>{XSS}</script>'
             f'<iframe srcdoc="<script>parent.{XSS}</script>"></iframe>')
_XSS_SVG = f'<svg xmlns="http://www.w3.org/2000/svg"><script>{XSS}</script></svg>'
XSS_OUTPUTS = f"""
from IPython.display import HTML, SVG, Javascript, display
display(HTML({_XSS_HTML!r}))
display(Javascript({XSS!r}))
display(SVG({_XSS_SVG!r}))
"""
XSS_MARKDOWN = (f"<script>{XSS}</script> <img src=x onerror=\"{XSS}\"> "
                f"[click](javascript:{XSS}) <iframe srcdoc='<script>{XSS}</script>'></iframe>")
UNSAFE_ID = "<img src=x onerror=alert(1)>"


def _tree_hash(folder: Path, skip: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if p.is_file() and not any(str(rel).startswith(s) for s in skip):
            out[str(rel)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path_factory.mktemp("attacks"))
    with open(course / runner.CONFIG_FILE, "a") as f:
        f.write("\nc.Execute.timeout = 20\n")
    build.generate(course, LAB)
    release = runner.read_notebook(course / "release" / LAB / NB)
    source = runner.read_notebook(course / "source" / LAB / NB)
    good = submission(release, source)
    solution = _solution_code(good)

    def put(student, nb):
        target = course / "submitted" / student / LAB / NB
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)

    put("early_good", good)
    first = grade.grade_class(course, [LAB], jobs=1, progress=False)
    before = {r.student: [(c.grade_id, c.score) for c in r.cells] for r in first.rows}
    instructor_files = _tree_hash(course, ("autograded", "submitted", "feedback",
                                           "gradebook.db", model.REVIEWS_FILE,
                                          model.RUNS_FILE))
    site_files = {str(p) for d in site.getsitepackages() for p in Path(d).iterdir()}

    for name, code in ATTACKS.items():
        nb = nbformat.from_dict(release)
        text = code.format(course=course, repo=ROOT, lab=LAB, mark=SLEEP_MARK)
        # Tampering attackers also answer correctly: only the flag may take their points.
        tamper = name in ("echo_event_hook", "echo_settrace", "echo_syntax_error",
                          "rewrite_tests", "replace_builtin", "patch_course_module",
                          "swallow_errors")
        _answer(nb).source = (solution + "\n" + text) if tamper else text
        put(name, nb)
    for name, code in FORGERS.items():
        nb = nbformat.from_dict(release)
        _answer(nb).source = code
        put(name, nb)
    leaker = nbformat.from_dict(release)
    _answer(leaker).source = solution.replace("def agent(", "def _agent(", 1) + LEAKER
    put("leaker", leaker)
    # A second notebook whose cell metadata is not nbgrader's crashed the feedback scan.
    (course / "submitted" / "leaker" / LAB / "notes.ipynb").write_text(json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "id": "x", "metadata": {"nbgrader": "x"}, "outputs": [],
             "execution_count": None, "source": "print(1)"}]}))
    xss = nbformat.from_dict(release)
    _answer(xss).source = solution + "\n" + XSS_OUTPUTS
    for cell in xss.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "why_one_message":
            cell.source = XSS_MARKDOWN
    xss.cells.append(nbformat.v4.new_markdown_cell(XSS_MARKDOWN))
    xss.cells.append(nbformat.v4.new_raw_cell(f"<script>{XSS}</script>",
                                              metadata={"format": "text/html"}))
    put("xss", xss)
    put(UNSAFE_ID, good)
    put("late_good", good)
    # Not an attack: a correct answer whose cell then fails with the notebook's own
    # exception class (IPython keeps it in sys.last_type); no review flag is due.
    honest = nbformat.from_dict(release)
    _answer(honest).source = solution + "\nclass Oops(Exception):\n    pass\n\nraise Oops()\n"
    put("honest_error", honest)
    result = grade.grade_class(course, [LAB], jobs=2, progress=False)
    time.sleep(1)
    feedback_errors = grade.write_feedback(course, [LAB])
    yield {
        "course": course, "result": result, "before": before,
        "runs": {r.student: r for r in result.runs},
        "rows": {r.student: r for r in result.rows},
        "instructor_files": instructor_files, "site_files": site_files,
        "feedback_errors": feedback_errors, "source": source,
    }
    shutil.rmtree(course, ignore_errors=True)


def _printed(course: Path, student: str) -> str:
    nb = runner.read_notebook(course / "autograded" / student / LAB / NB)
    cell = _answer(nb)
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


def _zero_or_flagged(ctx, student: str) -> None:
    run, row = ctx["runs"][student], ctx["rows"].get(student)
    assert run.ok or run.error, student
    if row is not None and not run.review:
        assert row.auto_score == 0, f"{student} scored {row.auto_score} without a review flag"
    if run.review:
        assert row is None or row.auto_score == 0, f"{student} flagged but scored"


def test_good_students_keep_exactly_their_grades(attacked):
    rows = attacked["rows"]
    assert attacked["runs"]["late_good"].ok and not attacked["runs"]["late_good"].review
    assert rows["late_good"].auto_score == rows["late_good"].auto_max == 14
    now = [(c.grade_id, c.score) for c in rows["early_good"].cells]
    assert now == attacked["before"]["early_good"]
    assert not attacked["result"].mismatches, attacked["result"].mismatches


def test_course_tree_is_unreadable_from_the_kernel(attacked):
    out = _printed(attacked["course"], "read_course_tree")
    assert "SEEN: []" in out, out
    _zero_or_flagged(attacked, "read_course_tree")


def test_gradebook_can_be_neither_found_nor_written(attacked):
    out = _printed(attacked["course"], "write_gradebook")
    assert "GRADEBOOKS: []" in out, out
    _zero_or_flagged(attacked, "write_gradebook")
    db = sqlite3.connect(attacked["course"] / "gradebook.db")
    assert db.execute("SELECT COUNT(*) FROM grade WHERE auto_score = 99").fetchone()[0] == 0


def test_another_students_submission_is_invisible(attacked):
    out = _printed(attacked["course"], "copy_classmate")
    assert "OTHERS: []" in out, out
    _zero_or_flagged(attacked, "copy_classmate")


def test_environment_is_read_only(attacked):
    out = _printed(attacked["course"], "plant_pth")
    assert "PLANTED" not in out and "REFUSED" in out, out
    now = {str(p) for d in site.getsitepackages() for p in Path(d).iterdir()}
    assert now == attacked["site_files"]
    _zero_or_flagged(attacked, "plant_pth")


def test_no_process_outlives_its_kernel(attacked):
    assert "FORKED" in _printed(attacked["course"], "leave_process")
    left = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if SLEEP_MARK.encode() in cmd:
                left.append(pid)
    assert not left, f"processes left behind: {left}"
    _zero_or_flagged(attacked, "leave_process")


def test_network_is_absent_even_without_the_guard(attacked):
    out = _printed(attacked["course"], "network")
    assert "NETWORK: refused" in out, out
    _zero_or_flagged(attacked, "network")


@pytest.mark.parametrize("student", ["echo_event_hook", "echo_settrace", "echo_syntax_error"])
def test_echoed_hidden_tests_never_reach_feedback(attacked, student):
    course = attacked["course"]
    assert attacked["runs"][student].review, f"{student} was not flagged"
    _zero_or_flagged(attacked, student)
    page = course / "feedback" / student / LAB / f"{LAB}.html"
    refused = [e for e in attacked["feedback_errors"] if f"/{student}/" in e]
    assert page.is_file() or refused
    if page.is_file():
        mine = own_lines(course / "submitted" / student / LAB)
        assert scan_page(page, attacked["source"], mine) == []
        hidden = secret_lines(attacked["source"], solutions=False)
        assert not hidden & page_lines(page)
    # What the kernel could echo is the visible checks and the record parts; the judges
    # never reach it (tests/test_judges.py), and no output of a test cell, or of any cell
    # run after the first record part, is kept.
    graded = runner.read_notebook(course / "autograded" / student / LAB / NB)
    shown = "\n".join(o.get("text", "") + "\n".join(o.get("traceback", []))
                      for c in graded.cells if c.cell_type == "code" for o in c.outputs)
    assert not [ln for ln in secret_lines(attacked["source"], solutions=False) if ln in shown]


def test_feedback_scan_refuses_a_page_with_a_hidden_line(attacked, tmp_path):
    line = sorted(secret_lines(attacked["source"]))[0]
    page = tmp_path / "page.html"
    page.write_text(f"<html><pre><span>{line}</span></pre></html>")
    assert scan_page(page, attacked["source"], set()) == [line]


@pytest.mark.parametrize("student,what", [
    ("rewrite_tests", "input transformer"),
    ("replace_builtin", "builtin all replaced"),
    ("patch_course_module", "course.fakes.FakeAPI.__init__ replaced"),
    ("echo_settrace", "trace hook"),
    ("echo_event_hook", "IPython event hook on pre_run_cell"),
    ("swallow_errors", "custom exception handler"),
])
def test_tampering_is_flagged_and_scores_zero(attacked, student, what):
    run, row = attacked["runs"][student], attacked["rows"][student]
    assert any(what in r for r in run.review), run.review
    assert row.auto_score == 0
    assert f"{student}/{LAB}" in model.needs_review(attacked["course"])


def test_no_instructor_file_changed(attacked):
    now = _tree_hash(attacked["course"], ("autograded", "submitted", "feedback",
                                          "gradebook.db", model.REVIEWS_FILE,
                                          model.RUNS_FILE))
    assert now == attacked["instructor_files"]


def test_clearing_a_review_restores_the_real_scores(attacked):
    course = attacked["course"]
    # The event hook only printed: once cleared, the answer's real (full) scores count.
    grade.clear_review(course, "echo_event_hook", LAB)
    row = {r.student: r for r in model.scores(course)}["echo_event_hook"]
    assert row.auto_score == row.auto_max == 14
    assert "echo_event_hook/" + LAB not in model.needs_review(course)
    assert not grade.reconcile(course, [("echo_event_hook", LAB)])


def test_an_honest_error_is_not_flagged(attacked):
    run, row = attacked["runs"]["honest_error"], attacked["rows"]["honest_error"]
    assert run.ok and not run.review, run.review
    assert row.auto_score == row.auto_max == 14


def _unflagged_score(ctx, student: str) -> float:
    """What the judges gave the submission, with any review flag cleared."""
    nb = runner.read_notebook(ctx["course"] / "autograded" / student / LAB / NB)
    return sum(v or 0 for v in grade.expected_scores(nb, flagged=False).values())


def test_the_constant_answer_scores_nothing(attacked):
    assert attacked["runs"]["control"].ok
    assert _unflagged_score(attacked, "control") == 0


@pytest.mark.parametrize("student", sorted(set(FORGERS) - {"control"}))
def test_forgers_score_no_more_than_the_constant_answer(attacked, student):
    run = attacked["runs"][student]
    assert run.ok, run.error
    scores = grade.expected_scores(runner.read_notebook(
        attacked["course"] / "autograded" / student / LAB / NB), flagged=False)
    assert _unflagged_score(attacked, student) <= _unflagged_score(attacked, "control"), scores
    assert attacked["rows"][student].auto_score == 0


def test_the_blinded_probe_is_still_flagged(attacked):
    assert attacked["runs"]["blind_probe"].review, "the Session patch went unseen"


def _leaked(text: str) -> list[str]:
    """Hidden-test lines found in the base64 blobs the leaker wrote into ``text``."""
    import base64

    source = runner.read_notebook(ROOT / "source" / LAB / NB)
    hidden = secret_lines(source, solutions=False)
    found = []
    for blob in re.findall(re.escape(LEAK_MARK) + r"([A-Za-z0-9+/=]{16,})", text):
        seen = base64.b64decode(blob + "=" * (-len(blob) % 4)).decode(errors="replace")
        found += [ln for ln in hidden if ln in " ".join(seen.split())]
    return found


def test_nothing_a_kernel_saw_reaches_the_autograded_copy_or_feedback(attacked):
    course = attacked["course"]
    assert attacked["rows"]["leaker"].auto_score == 14  # a correct answer keeps its points
    graded = runner.read_notebook(course / "autograded" / "leaker" / LAB / NB)
    outputs = json.dumps([c.get("outputs", []) for c in graded.cells])
    assert LEAK_MARK in outputs  # its self-check call, before any test ran, is kept
    assert not _leaked(outputs)
    page = course / "feedback" / "leaker" / LAB / f"{LAB}.html"
    refused = [e for e in attacked["feedback_errors"] if "/leaker/" in e]
    assert page.is_file() and not refused, refused
    assert not _leaked(page.read_text())


def test_xss_submission_keeps_its_points_and_no_markup(attacked):
    course = attacked["course"]
    assert attacked["rows"]["xss"].auto_score == 14
    graded = runner.read_notebook(course / "autograded" / "xss" / LAB / NB)
    shown = json.dumps([c.get("outputs", []) for c in graded.cells])
    shown += "\n".join(c.source for c in graded.cells if c.cell_type != "code")
    page = (course / "feedback" / "xss" / LAB / f"{LAB}.html").read_text()
    # Escaped text is harmless ("&lt;img ... onerror=" is not a tag); a live tag or link is.
    for live in ("<script>document.title", "<img src=x", "<iframe", "javascript:document",
                 "<svg xmlns"):
        assert live not in shown, live
        assert live not in page, live  # the student's code is shown, escaped
    assert "Content-Security-Policy" in page.split("</head>", 1)[0]


def test_an_unsafe_student_id_is_refused_and_the_rest_graded(attacked):
    run = attacked["runs"][UNSAFE_ID]
    assert not run.ok and "not a safe id" in run.error
    assert UNSAFE_ID not in attacked["rows"]
    db = sqlite3.connect(attacked["course"] / "gradebook.db")
    found = db.execute("SELECT COUNT(*) FROM student WHERE id = ?", (UNSAFE_ID,)).fetchone()
    assert found[0] == 0
