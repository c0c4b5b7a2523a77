"""The boundary between a grading kernel and the grader: each rule, on values a hostile
kernel would send (no kernel needed here; `tests/test_kernel_boundary.py` sends them from
real sandboxed kernels through `course grade`)."""

from __future__ import annotations

import base64
import codecs
import json
import socket
import threading
import time

import pytest

from course import hub
from course.grading.execution import boundary, engine, fakehub, judge, probe
from course.grading.execution.grade import _Merger
from course.grading.results import html_report, model
from course.grading.runner import PipelineError
from course.worlds import weather

HIDDEN = 'out = outcome(agent, weather.GOAL_TOKYO_SECRET, calls, api, max_steps=7)'


def _json_strict(value) -> str:
    """What writing ``value`` to a file as UTF-8 JSON would do (raises on a surrogate)."""
    text = json.dumps(value, ensure_ascii=False)
    text.encode("utf-8")
    return text


# -- text ---------------------------------------------------------------------------------


@pytest.mark.parametrize("evil", ["\ud800", "a\udfffb", "\x1b[2J\x1b[H", "\r", "\x08",
                                  "\u202e", "\x9b31m", "\u2028", "\ue000"])
def test_kernel_text_reaches_no_terminal_or_file_as_control(evil):
    for out in (boundary.line(f"flag {evil} end"), boundary.text(f"x\n{evil}\ty")):
        _json_strict(out)
        assert evil not in out
        assert all(ch in "\n\t" or ch.isprintable() for ch in out), repr(out)


def test_a_valid_surrogate_pair_is_its_character_and_text_keeps_lines():
    assert boundary.line("\ud83d\ude00") == "\U0001f600"
    assert boundary.text("one\ntwo\tthree") == "one\ntwo\tthree"
    assert boundary.line("one\ntwo") == "one\\ntwo"


def test_long_text_is_cut_and_says_how_much():
    out = boundary.line("x" * 25_000_000, 200)
    assert len(out) < 260 and "24,999,800 more characters cut" in out


def test_review_flags_are_capped_in_length_and_number():
    found = [f"hook {n} " + "\x1b[2J" * 1000 for n in range(500)] + ["dup", "dup"]
    out = boundary.flags(found)
    assert len(out) == boundary.MAX_FLAGS + 1 and out[-1].startswith("and 462 more")
    assert all(len(f) < boundary.MAX_NAME + 60 and "\x1b" not in f for f in out)


def test_probe_changes_pass_the_boundary():
    baseline = {"found": [], "ident": {"course.observe.emit": 1}, "builtins": {"len": 2}}
    now = {"found": ["IPython event hook on pre_run_cell: f\ud800" + "\x1b[2J" * 10],
           "ident": {"course.observe.emit": 9, "course.observe.emit_\ud800": 3},
           "builtins": {"len": 2}}
    flags = probe.changes(baseline, now)
    _json_strict(flags)
    assert "course.observe.emit replaced" in flags
    assert any("pre_run_cell: f\ufffd" in f and "\\x1b" in f for f in flags)


def test_an_oversized_probe_answer_is_no_answer():
    reply = {"content": {"user_expressions": {"probe": {
        "status": "ok", "data": {"text/plain": "'" + "x" * (probe.MAX_ANSWER_CHARS + 1) + "'"}}}}}
    assert probe.read(reply, "n") is None
    assert probe.changes({}, None) == ["the tamper probe got no honest answer from the kernel"]


# -- records ------------------------------------------------------------------------------


def test_record_caps():
    boundary.check_record({"a": [1, 2.5, "x", None, True, {"b": []}]})
    deep: object = []
    for _ in range(boundary.MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(boundary.Refused, match="nests deeper"):
        boundary.check_record(deep)
    with pytest.raises(boundary.Refused, match="more than 250,000 values"):
        boundary.check_record([0] * (boundary.MAX_NODES + 1))
    refs = [{hub.REF: 0, "field": "requests"}] * (boundary.MAX_REFS + 1)
    with pytest.raises(boundary.Refused, match="more than 64 times"):
        boundary.check_record({"r": refs})


def test_a_judges_messages_show_values_short_and_its_comparisons_see_them_whole():
    rec = {"out": "y" * 10_000, "calls": [["get", {"city": "P"}]] * 5000}
    whole = ("assert len(rec['out']) == 10_000 and str(rec['calls']) == str("
             "[['get', {'city': 'P'}]] * 5000), 'the values reach the judge whole'\n")
    judge.run(whole, rec, "g")
    with pytest.raises(judge.JudgeFailed) as failed:
        judge.run(whole + "assert False, f\"got {rec['out']!r}, calls {rec['calls']}, "
                  "first {rec['calls'][0][1]['city']}\"", rec, "g")
    message = str(failed.value)
    assert boundary.OPEN in message and len(message) < 400
    shown = boundary.judge_message(message)
    assert boundary.OPEN not in shown and boundary.CLOSE not in shown
    assert shown.startswith("got 'yyyy") and "(+9,920)" in shown and shown.endswith("first P")
    with pytest.raises(judge.JudgeFailed) as failed:  # a raise in a judge is rewritten too
        judge.run("raise AssertionError(f'got {rec[\"out\"]}')", rec, "g")
    assert len(str(failed.value)) < 120


SECRETS = boundary.Secrets([HIDDEN], public=["weather.run(agent, weather.GOAL, calls, api)"])


@pytest.mark.parametrize("encode", [
    lambda s: s, lambda s: s[::-1], lambda s: codecs.encode(s, "rot13"),
    lambda s: base64.b64encode(s.encode()).decode(), lambda s: "xy" + base64.b64encode(
        s.encode()).decode(), lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    lambda s: s.encode().hex(), lambda s: "".join(f"%{b:02x}" for b in s.encode()),
    lambda s: s.encode("unicode_escape").decode().replace(" ", "\\x20")])
def test_a_kernel_value_that_quotes_a_record_line_is_not_shown(encode):
    leak = encode(HIDDEN[10:60])
    assert SECRETS.found(leak)
    message = f"final answer wrong; got {boundary.shown(leak, ord('r'))}"
    shown = boundary.judge_message(message, SECRETS)
    assert leak[:20] not in shown and "quotes the hidden test" in shown
    assert shown.startswith("final answer wrong; got")
    unmarked = boundary.judge_message(f"final answer wrong; got {leak} (see above)", SECRETS)
    assert leak[:20] not in unmarked and "‹…›" in unmarked, unmarked
    assert unmarked.startswith("final answer wrong; got") and unmarked.endswith("(see above)")


def test_public_text_and_short_values_are_no_secret():
    assert not SECRETS.found("weather.run(agent, weather.GOAL, calls, api)")
    assert not SECRETS.found("It is 14C and raining in Paris.")
    assert boundary.judge_message(f"got {boundary.shown('It is 14C', ord('r'))}", SECRETS) \
        == "got 'It is 14C'"


# -- errors the kernel reports ----------------------------------------------------------------

VISIBLE = '''
assert out == "It is 14C", f"final answer should be 'It is 14C'; got {out!r}"
assert calls == 2, "call dispatch once per tool_use block"
raise AssertionError(f"the loop went on: {err}")
'''


def test_a_hidden_cells_error_shows_grader_words_only():
    visible = boundary.visible_messages(VISIBLE)
    leak = "LEAK " + base64.b64encode(HIDDEN.encode()).decode()
    assert boundary.error_verdict("ValueError", leak, visible) == (
        "ValueError", "your code or a visible check raised ValueError; run this notebook's "
        "visible checks (Validate) to see its message")
    name, message = boundary.error_verdict("Exfil\x1b", leak, visible)
    assert name == "Error" and "own class" in message
    assert boundary.error_verdict("AssertionError", "call dispatch once per tool_use block",
                                  visible)[1] == "call dispatch once per tool_use block"
    assert boundary.error_verdict(
        "AssertionError", f"final answer should be 'It is 14C'; got {leak!r}", visible)[1] \
        == "final answer should be 'It is 14C'; got …"
    assert "not written yet" in boundary.error_verdict("NotImplementedError", "", visible)[1]
    assert boundary.known_exception("RateLimitError") == "RateLimitError"  # the SDK's
    assert boundary.known_exception("ReplayMiss") == "ReplayMiss"  # the course's
    assert boundary.known_exception("MyOwnError") == ""


def test_template_matching_is_linear_on_a_hostile_message():
    visible = boundary.visible_messages('assert x, f"{a}-{b}-{c}-{d}-{e}!"')
    started = time.monotonic()
    assert boundary.error_verdict("AssertionError", "-" * 100_000 + "?", visible)[1] \
        .startswith("your code")
    assert time.monotonic() - started < 5  # a backtracking regex would take hours


# -- the judge ------------------------------------------------------------------------------


def test_a_judge_that_runs_past_its_time_fails_its_cell():
    started = time.monotonic()
    with pytest.raises(judge.JudgeFailed, match="ran past its 0.5 s"):
        judge.run("while True:\n    pass\nassert rec", {}, "g", seconds=0.5)
    assert time.monotonic() - started < 5


# -- the hub --------------------------------------------------------------------------------


def test_a_factory_call_is_checked_before_it_runs():
    key = "course.worlds.weather:endless"
    fakehub.check_call(key, [40], {})
    with pytest.raises(hub.HubError, match="limit=400000 is outside 0..100"):
        fakehub.check_call(key, [400000], {})
    with pytest.raises(hub.HubError, match="limit is a str"):
        fakehub.check_call(key, ["40"], {})
    with pytest.raises(hub.HubError, match="unexpected keyword"):
        fakehub.check_call(key, [], {"rows": 1})
    refusal = "course.worlds.weather:refusal"
    fakehub.check_call(refusal, ["no", "thanks"], {})
    with pytest.raises(hub.HubError, match="more than 2,000 values"):
        fakehub.check_call(refusal, ["x"] * 3000, {})
    with pytest.raises(hub.HubError, match="over 1,000,000 bytes"):
        fakehub.check_call(refusal, ["x" * 2_000_000], {})


def _post(sock_path: str, path: str, body: bytes) -> bytes:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    s.sendall(f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {len(body)}\r\n"
              f"connection: close\r\n\r\n".encode() + body)
    got = b""
    while chunk := s.recv(65536):
        got += chunk
    s.close()
    return got


def test_the_hub_refuses_a_flood_and_ends_every_connection_it_holds(tmp_path):
    before = threading.active_count()
    with fakehub.Hub(tmp_path) as fakes:
        asked = json.dumps({"factory": "course.worlds.weather:endless", "args": [400000]})
        assert b" 400 " in _post(fakes.socket, "/fakes", asked.encode()).split(b"\r\n")[0]
        assert not fakes.fakes
        idle = []
        for _ in range(10):  # connections that never send a byte
            s = socket.socket(socket.AF_UNIX)
            s.connect(fakes.socket)
            idle.append(s)
        time.sleep(0.3)
        assert threading.active_count() >= before + 10
        started = time.monotonic()
    assert time.monotonic() - started < 10
    time.sleep(0.2)
    assert threading.active_count() <= before, "a hub thread outlived its hub"
    for s in idle:
        s.close()


def test_the_hubs_cpu_budget_refuses_past_it(tmp_path, monkeypatch):
    monkeypatch.setattr(fakehub, "MAX_CPU_SECONDS", 0.0)
    with fakehub.Hub(tmp_path) as fakes:
        fakes.spend(0.01)
        asked = json.dumps({"factory": "course.worlds.weather:two_step"}).encode()
        assert b" 429 " in _post(fakes.socket, "/fakes", asked).split(b"\r\n")[0]


def test_references_resolve_once_to_one_log(tmp_path):
    with fakehub.Hub(tmp_path) as fakes:
        fakes.fakes.append(weather.two_step.local())
        fakes.fakes[0].requests.append({"messages": [{"role": "user", "content": "x" * 100}]})
        ref = {hub.REF: 0, "field": "requests"}
        got = fakes.resolve({"a": [ref] * 60, "b": ref})
    assert all(log is got["b"] for log in got["a"])
    assert isinstance(got["b"], hub.ServedLog) and hub.log_of(got["b"]) is got["b"]
    assert len(repr(got["b"])) < 200 and got["b"][0]["messages"][0]["content"] == "x" * 100


# -- the records beside the gradebook -----------------------------------------------------------


def test_results_files_are_written_atomically_and_damage_is_named(tmp_path):
    model.save_reviews(tmp_path, {"ann/lab": ["builtin len replaced"]})
    assert model.needs_review(tmp_path) == {"ann/lab": ["builtin len replaced"]}
    model.save_reviews(tmp_path, {"ann/lab": ["hook f\ud800\x1b[2J"]})
    assert model.needs_review(tmp_path) == {"ann/lab": ["hook f\ufffd\\x1b[2J"]}
    with pytest.raises(UnicodeEncodeError):  # a write that fails keeps the old file whole
        model.write_atomically(tmp_path / model.REVIEWS_FILE, "\ud800")
    assert model.needs_review(tmp_path) == {"ann/lab": ["hook f\ufffd\\x1b[2J"]}
    assert [p.name for p in tmp_path.iterdir()] == [model.REVIEWS_FILE]  # no temporary left
    (tmp_path / model.REVIEWS_FILE).write_text("")
    with pytest.raises(PipelineError, match=f"{model.REVIEWS_FILE}: not a record of review"):
        model.needs_review(tmp_path)
    (tmp_path / model.RUNS_FILE).write_text('{"not": "a list"}')
    results = model.ClassResults.from_course(tmp_path)
    assert len(results.unreadable) == 2 and model.RUNS_FILE in results.unreadable[0]
    page = html_report.render(results)
    assert "Could not read" in page and model.REVIEWS_FILE in page


def test_one_submissions_bookkeeping_failure_costs_only_that_submission(tmp_path, monkeypatch):
    from course.grading.execution import grade

    def merge(course_dir, student, assignment, outs):
        if student == "bad":
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
        written.append(student)

    written: list[str] = []
    monkeypatch.setattr(grade, "merge", merge)
    monkeypatch.setattr(grade, "_register_students", lambda *a: None)
    todo = [("good1", "lab"), ("bad", "lab"), ("good2", "lab")]
    jobs = [engine.Job(s, a, "nb", {}, "{}") for s, a in todo]
    merger = _Merger(tmp_path, todo, jobs, True)
    merger.allow()
    for s, a in todo:
        merger.add(engine.Outcome(s, a, "nb", ok=True, executed="{}"))
    runs = {r.student: r for r in merger.runs()}
    assert written == ["good1", "good2"]
    assert runs["good2"].ok and not runs["bad"].ok
    assert "could not be recorded (UnicodeEncodeError" in runs["bad"].error


def test_an_outcome_from_a_worker_passes_the_boundary_again():
    out = engine.Outcome("ann", "lab", "nb", ok=False, error="x\x1b[2J" * 10_000,
                         review=["\ud800"] * 3 + [str(n) for n in range(100)])
    boundary.outcome(out)
    _json_strict([out.error, out.review])
    assert "\x1b" not in out.error and len(out.error) < 2100
    assert len(out.review) == boundary.MAX_FLAGS + 1


@pytest.mark.slow  # mounts tmpfs (root) and starts worker processes
def test_the_parent_removes_a_dead_workers_mounts(tmp_path):
    import os
    import tempfile

    from course.grading.execution import pool, sandbox

    from .pool_jobs import fake_grade

    def ours() -> set[str]:
        tmp = os.path.realpath(tempfile.gettempdir())
        return {mp for mp in sandbox._mountpoints()
                if os.path.dirname(mp) == tmp and sandbox._STALE.match(os.path.basename(mp))}

    before = ours()
    jobs = [engine.Job(f"s{n}", "lab", "nb", {"how": b"die mounted" if n == 0 else b"ok"},
                       str(tmp_path / "marker")) for n in range(3)]
    outs = pool.run_local(jobs, 2, fn=fake_grade)
    assert not outs[0].ok and "crashed" in outs[0].error
    assert all(o.ok for o in outs[1:])
    assert ours() <= before, ours() - before
