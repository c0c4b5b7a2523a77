"""Attacks on the grader's own process, through `course grade -j 2`: each sends the grader
hostile bytes from a real sandboxed kernel (names, records, hub requests, error text), as a
student who has read `course/grading/` would. A good student is graded before and after
them, and a constant answer is the control every attacker is held to.

Each attacker must score no more than the control, with a clear reason; the good students
keep full marks; every grade is written; no grader process passes 1 GiB; no terminal control
character reaches the grade table, `reviews.json` or a page; and nothing the kernel saw of
the hidden tests reaches a student's feedback page or autograded notebook, plain or encoded.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil

import nbformat
import pytest

from course.grading import runner
from course.grading.authoring import build, markers
from course.grading.execution import grade
from course.grading.proofs.mutation import submission
from course.grading.results import html_report, model, report

from . import ROOT

pytestmark = pytest.mark.slow

LAB = "lab01_tool_loop"
NB = f"{LAB}.ipynb"

#: Each attacker answers as the control does (a constant), under this name, so whatever it
#: scores above the control would come from its attack.
WRAP = "_constant_agent"
#: The solution's agent, under this name, for the one attacker that needs a correct loop.
SOLVED = "_solved_agent"

ATTACKS = {
    # A review flag whose name holds a lone surrogate killed `course grade` while it wrote
    # reviews.json, and the classmate graded next got no grade.
    "surrogate_names": '''
import course.observe
setattr(course.observe, "emit_\\ud800", lambda: None)
def _hook(*args):
    pass
_hook.__qualname__ = "hook_\\udfff"
get_ipython().events.register("post_run_cell", _hook)
agent = {wrap}
''',
    # A long name that clears the instructor's terminal and prints a forged table row.
    "ansi_forgery": '''
def _hook(*args):
    pass
_hook.__qualname__ = "\\x1b[2J\\x1b[H\\r| early_good | 0/14 | FAILED |\\n" + "A" * 200_000
get_ipython().events.register("post_run_cell", _hook)
agent = {wrap}
''',
    # The same, 25 MB long: over what the probe may answer and what a kernel may send.
    "ansi_flood": '''
def _hook(*args):
    pass
_hook.__qualname__ = "\\x1b[2J" + "B" * 25_000_000
get_ipython().events.register("post_run_cell", _hook)
agent = {wrap}
''',
    # The hub builds whatever it is asked, in the grader's memory: a fake of 400,000
    # replies on four connections, then bodies of 20 MB to a fake it did build.
    "hub_flood": '''
import json, socket
import course.hub
def _ask(path, body):
    s = socket.socket(socket.AF_UNIX)
    s.connect(course.hub._socket)
    s.sendall(b"POST " + path + b" HTTP/1.1\\r\\nhost: x\\r\\ncontent-length: %d\\r\\n"
              b"connection: close\\r\\n\\r\\n" % len(body) + body)
    got = s.recv(64)
    s.close()
    return got
def agent(goal, tools, dispatch, *, client, max_steps=12):
    if course.hub._socket:
        big = json.dumps({{"factory": "course.worlds.weather:endless",
                          "args": [400000]}}).encode()
        for _ in range(4):
            _ask(b"/fakes", big)
        made = json.loads(_ask(b"/fakes", json.dumps(
            {{"factory": "course.worlds.weather:two_step"}}).encode()).split(b"\\r\\n\\r\\n")[-1]
            or b"{{}}").get("id", 0)
        body = json.dumps({{"model": "claude-opus-5", "max_tokens": 10,
                           "messages": [{{"role": "user", "content": "x" * 20_000_000}}]}})
        for _ in range(3):
            _ask(b"/fakes/%d/v1/messages" % made, body.encode())
    return {wrap}(goal, tools, dispatch, client=client, max_steps=max_steps)
''',
    # Idle connections that hold the hub's threads, then a kernel that dies.
    "hub_threads_then_exit": '''
import os, socket
import course.hub
_held = []
def agent(goal, tools, dispatch, *, client, max_steps=12):
    if course.hub._socket:
        for _ in range(30):
            s = socket.socket(socket.AF_UNIX)
            s.connect(course.hub._socket)
            _held.append(s)
        os._exit(0)
    return {wrap}(goal, tools, dispatch, client=client, max_steps=max_steps)
''',
    # A record that names the grader's log 25,000 times: a correct loop whose answer
    # passes the visible check (it equals anything) and records as 25,000 references.
    "reference_flood": '''
from course.hub import Requests
class _Equal(list):
    def __eq__(self, other):
        return True
    __hash__ = None
def agent(goal, tools, dispatch, *, client, max_steps=12):
    {solved}(goal, tools, dispatch, client=client, max_steps=max_steps)
    return _Equal([Requests([], 0)] * 25_000)
''',
    # The hidden record part, read while it runs, carried out in the error text: base64
    # in an Exception, plain in a BaseException that nothing wraps.
    "error_leak": '''
import base64, linecache, sys
class Exfil(BaseException):
    pass
def _seen():
    f, text = sys._getframe(1), ""
    while f is not None:
        text += "".join(linecache.getlines(f.f_code.co_filename))
        f = f.f_back
    return text
_calls = [0]
def agent(goal, tools, dispatch, *, client, max_steps=12):
    _calls[0] += 1
    if _calls[0] % 2:
        raise ValueError("LE" + "AK:" + base64.b64encode(_seen().encode()).decode())
    raise Exfil("LEAK" + "PLAIN:" + _seen())
''',
    # The same, carried out in the answer, which a judge's message quotes.
    "answer_leak": '''
import base64, linecache, sys
_calls = [0]
def agent(goal, tools, dispatch, *, client, max_steps=12):
    f, lines = sys._getframe(1), []
    while f is not None:
        lines += [ln.strip() for ln in linecache.getlines(f.f_code.co_filename)
                  if "record(" in ln]
        f = f.f_back
    secret = max(lines, key=len) if lines else "nothing"
    _calls[0] += 1
    if _calls[0] % 2:
        return "LE" + "AK:" + base64.b64encode(secret[:50].encode()).decode()
    return secret[:70]
''',
}
CONTROL = '''
def agent(goal, tools, dispatch, *, client, max_steps=12):
    return "It is sunny."
'''


def _answer(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "agent")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path_factory.mktemp("boundary"))
    with open(course / runner.CONFIG_FILE, "a") as f:
        f.write("\nc.Execute.timeout = 20\n")
    build.generate(course, LAB)
    release = runner.read_notebook(course / "release" / LAB / NB)
    source = runner.read_notebook(course / "source" / LAB / NB)
    good = submission(release, source)
    constant = CONTROL.replace("def agent(", f"def {WRAP}(", 1)
    solved = _answer(good).source.replace("def agent(", f"def {SOLVED}(", 1)

    def put(student, code=None):
        nb = nbformat.from_dict(good if code is None else release)
        if code is not None:
            _answer(nb).source = "\n".join(
                (constant, solved, code.format(wrap=WRAP, solved=SOLVED)))
        target = course / "submitted" / student / LAB / NB
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)

    put("early_good")
    for name, code in ATTACKS.items():
        put(name, code)
    put("control", "agent = {wrap}\n")
    put("late_good")
    result = grade.grade_class(course, [LAB], jobs=2, progress=False)
    feedback_errors = grade.write_feedback(course, [LAB])
    yield {"course": course, "result": result, "source": source,
           "runs": {r.student: r for r in result.runs},
           "rows": {r.student: r for r in result.rows},
           "feedback_errors": feedback_errors}
    if not os.environ.get("COURSE_KEEP"):  # COURSE_KEEP=1 keeps the course to look at
        shutil.rmtree(course, ignore_errors=True)


def _record_lines(source) -> list[str]:
    out = []
    for cell in source.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            record = markers.test_parts(cell.source).record
            out += [" ".join(ln.split()) for ln in record.splitlines() if len(ln.strip()) >= 20]
    return out


def _student_pages(ctx, student: str) -> str:
    """What a kernel's words reach: the outputs of the autograded notebook (the formgrader;
    its cells' sources are the course's own, hidden tests included) and the student's
    feedback page, whose code cells quote their own answer (in which the attack's markers
    are split, so they appear joined only if the kernel's text got through)."""
    course = ctx["course"]
    nb = runner.read_notebook(course / "autograded" / student / LAB / NB)
    text = json.dumps([c.get("outputs", []) for c in nb.cells], ensure_ascii=False)
    for path in (course / "feedback" / student / LAB).glob("*.html"):
        text += html.unescape(path.read_text(encoding="utf-8"))
    return text


def test_every_grade_is_written_and_good_students_keep_full_marks(graded):
    runs, rows = graded["runs"], graded["rows"]
    assert set(runs) == {"early_good", "late_good", "control", *ATTACKS}
    for student in ("early_good", "late_good"):
        assert runs[student].ok and not runs[student].review, runs[student]
        assert rows[student].auto_score == rows[student].auto_max == 14
    assert not graded["result"].mismatches


def test_each_attacker_scores_no_more_than_the_control_with_a_reason(graded):
    runs, rows = graded["runs"], graded["rows"]
    control = rows["control"].auto_score
    assert control < 14
    for name in set(ATTACKS) - {"reference_flood"}:  # that one answers correctly
        run, row = runs[name], rows.get(name)
        score = row.auto_score if row is not None and run.ok else 0
        assert score <= control, f"{name} scored {score}, the control {control}"
        assert run.error or run.review or row.lost, name


def test_kernel_names_reach_no_file_or_terminal_as_control_characters(graded):
    course, result = graded["course"], graded["result"]
    raw = (course / model.REVIEWS_FILE).read_bytes()
    reviews = json.loads(raw.decode("utf-8"))  # strict UTF-8, valid JSON
    assert "surrogate_names/" + LAB in reviews and "ansi_forgery/" + LAB in reviews
    assert len(raw) < 100_000
    printed = report.grade_table(result) + report.class_report(result)
    printed.encode("utf-8")
    assert len(printed) < 100_000
    for text in (raw.decode(), printed, (course / model.RUNS_FILE).read_text()):
        assert "\x1b" not in text and "\r" not in text and "\ud800" not in text
    assert not re.search(r"^\| early_good \| 0/14", printed, re.M)  # no forged row
    assert any("hook_\ufffd" in f for f in reviews["surrogate_names/" + LAB])
    page = html_report.course_report(course)
    assert "\x1b" not in page


def test_the_hub_refuses_the_flood_and_no_grader_process_passes_1_gib(graded):
    runs = graded["runs"]
    peaks = {s: r.worker_peak_mib for s, r in runs.items()}
    assert all(0 < p < 1024 for p in peaks.values()), peaks
    assert graded["rows"]["hub_flood"].auto_score <= graded["rows"]["control"].auto_score


def test_a_kernel_that_dies_holding_the_hubs_connections_costs_only_itself(graded):
    run = graded["runs"]["hub_threads_then_exit"]
    assert not run.ok and "kernel died" in run.error, run.error


def test_a_record_naming_the_log_too_often_fails_its_cell_with_the_reason(graded):
    nb = runner.read_notebook(graded["course"] / "autograded" / "reference_flood" / LAB / NB)
    said = {c.metadata["nbgrader"]["grade_id"]: json.dumps(c.outputs) for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"}
    assert "names the fake API's log more than 64 times" in said["two_step_trace"]
    lost = graded["rows"]["reference_flood"].lost
    assert "two_step_trace" in lost and lost < {c for c in said}  # the rest is its own work


def test_no_hidden_line_leaves_through_error_text_or_answers(graded):
    assert not graded["feedback_errors"], graded["feedback_errors"]
    secret = _record_lines(graded["source"])
    assert secret
    for student in ("error_leak", "answer_leak"):
        shown = _student_pages(graded, student)
        assert shown, student
        assert "LEAKPLAIN" not in shown, student
        assert _decoded_leaks(shown, secret) == [], student
        flat = " ".join(shown.split())
        assert not [ln for ln in secret if ln[:40] in flat], student


def _decoded_leaks(text: str, secret: list[str]) -> list[str]:
    """Secret lines found in any base64 an attacker put after "LEAK:" on a page."""
    found = []
    for run in re.findall(r"LEAK:([A-Za-z0-9+/=]{8,})", text):
        try:
            decoded = base64.b64decode(run + "=" * (-len(run) % 4)).decode("utf-8", "replace")
        except ValueError:
            continue
        found += [ln for ln in secret if len(decoded) >= 16 and decoded[:16] in ln]
    return found


def test_a_hidden_cells_error_shows_only_grader_words(graded):
    nb = runner.read_notebook(graded["course"] / "autograded" / "error_leak" / LAB / NB)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.get("output_type") == "error"]
    assert errors
    names = {o["ename"] for o in errors}
    assert names <= {"ValueError", "Error", "GradingError", "AssertionError"}, names
    assert "Exfil" not in json.dumps(errors)
