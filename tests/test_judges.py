"""The kernel observes, the grader judges: records, the static rules a judge must follow,
the verdicts the engine takes from the protocol, the sanitised autograded copy, and proof
that no judge line is ever sent to a kernel."""

from __future__ import annotations

import asyncio
import json
import re

import nbformat
import pytest

from course import observe
from course.grading.authoring import markers
from course.grading.execution import boundary, engine, judge, sanitize
from course.grading.runner import read_notebook

from . import ROOT

LAB = "lab01_tool_loop"
CELL = """x = f(2)
assert x == 4
### BEGIN HIDDEN TESTS
y = f(3)
rec = record(y=y)
### JUDGE
assert rec["y"] == 9, "f(3) must be 9"
### END HIDDEN TESTS"""


def test_parts_split_kernel_record_and_judge():
    parts = markers.test_parts(CELL)
    assert parts.kernel == 'x = f(2)\nassert x == 4\ny = f(3)\nrec = record(y=y)'
    assert parts.record == "y = f(3)\nrec = record(y=y)"
    assert parts.judge == 'assert rec["y"] == 9, "f(3) must be 9"'
    assert not parts.legacy and parts.has_hidden
    assert "9" not in parts.kernel


def test_a_hidden_region_without_a_judge_is_legacy():
    parts = markers.test_parts(CELL.replace("### JUDGE\n", ""))
    assert parts.legacy and 'rec["y"] == 9' in parts.kernel
    assert "would run in the student's kernel; put '### JUDGE'" in judge.problems(parts, "c")[0]


@pytest.mark.parametrize("source,message", [
    ("x = 1\n### JUDGE\nassert x", "'### JUDGE' outside a hidden-test region"),
    ("### BEGIN HIDDEN TESTS\nrec = 1\n### JUDGE\nassert rec\n### JUDGE\n"
     "### END HIDDEN TESTS", "a second '### JUDGE'"),
])
def test_misplaced_judge_lines_are_errors(source, message):
    with pytest.raises(markers.MarkerError, match=message):
        markers.test_parts(source)


@pytest.mark.parametrize("change,problem", [
    (("assert rec[\"y\"] == 9", "assert x == 9"), "the judge reads x, which only the kernel has"),
    (("y = f(3)", "y = f(3)\nassert y == 9"), "an assert in the record part"),
    (("rec = record(y=y)", "out = record(y=y)"), "the record part never binds 'rec'"),
    (("assert rec[\"y\"] == 9, \"f(3) must be 9\"", "print(rec)"), "the judge asserts nothing"),
    (("rec = record(y=y)", "rec = record(y=y, n=len(api.requests))"),
     "the record part reads api.requests in the kernel"),
    (("rec = record(y=y)", "rec = record(y=y, sent=[b['model'] for b in api.requests])"),
     "the record part reads api.requests in the kernel"),
    (("rec = record(y=y)", "rec = record(y=y, log=api.requests)"),
     "the judge never reads one through course.hub.log_of"),
])
def test_the_static_rules_catch_a_judge_that_would_not_work_outside(change, problem):
    assert judge.problems(markers.test_parts(CELL), "c") == []
    bad = markers.test_parts(CELL.replace(*change))
    assert any(problem in p for p in judge.problems(bad, "c")), judge.problems(bad, "c")


def test_a_whole_log_read_through_log_of_passes():
    good = CELL.replace("rec = record(y=y)", "rec = record(y=y, log=api.requests)").replace(
        "### JUDGE\n", "### JUDGE\nfrom course.hub import log_of\nassert log_of(rec['log'])\n")
    assert judge.problems(markers.test_parts(good), "c") == []


def test_a_visible_only_cell_must_gain_a_judge():
    assert "no hidden part" in judge.problems(markers.test_parts("assert f(2) == 4"), "c")[0]


def test_run_gives_the_judges_message_and_survives_a_malformed_record():
    judge.run(markers.test_parts(CELL).judge, {"y": 9}, "c")
    with pytest.raises(judge.JudgeFailed, match="f\\(3\\) must be 9"):
        judge.run(markers.test_parts(CELL).judge, {"y": 8}, "c")
    with pytest.raises(judge.JudgeFailed, match="could not be checked \\(KeyError"):
        judge.run(markers.test_parts(CELL).judge, {"z": 9}, "c")
    with pytest.raises(judge.JudgeFailed, match="TypeError"):
        judge.run(markers.test_parts(CELL).judge, ["not", "a", "dict"], "c")


class Sly(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


def test_record_is_plain_json_and_an_always_equal_object_loses_its_trick():
    from dataclasses import dataclass

    @dataclass
    class Point:
        x: int
        y: tuple

    rec = observe.record(t=(1, 2), s={3, 1}, p=Point(1, (2,)), e=ValueError("bad"),
                         sly=Sly("nope"), nan=float("nan"), obj=object)
    assert json.loads(json.dumps(rec)) == rec
    assert rec["t"] == [1, 2] and rec["s"] == [1, 3] and rec["p"] == {"x": 1, "y": [2]}
    assert rec["e"] == {"type": "ValueError", "message": "bad"}
    assert type(rec["sly"]) is str and rec["sly"] != "anything"
    assert rec["nan"] == "nan" and rec["obj"] == repr(object)
    import numpy as np

    assert observe.record(n=np.int64(3), a=np.array([[1.5, 2]])) == {"n": 3, "a": [[1.5, 2.0]]}


def test_describe_keeps_the_status_of_an_api_error():
    import anthropic
    import httpx2

    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    err = anthropic.RateLimitError("slow down", response=httpx2.Response(429, request=request),
                                   body=None)
    got = observe.describe(err)
    assert got["status"] == 429 and got["type"] == got["class"] == "RateLimitError"
    assert "anthropic.APIStatusError" in got["mro"] and got["message"] == "slow down"


def test_outcome_keeps_what_was_raised_and_lets_the_stub_through():
    assert observe.outcome(lambda: (1, 2)) == {"value": [1, 2], "raised": None}
    assert observe.outcome(lambda: 1 / 0)["raised"]["type"] == "ZeroDivisionError"

    class Full(KeyError):
        pass

    def full():
        raise Full("k")

    raised = observe.outcome(full)["raised"]
    assert {k: raised[k] for k in ("type", "class", "status")} == {
        "type": "KeyError", "class": "Full", "status": None}
    assert raised["mro"][-5:] == ["builtins.KeyError", "builtins.LookupError",
                                  "builtins.Exception", "builtins.BaseException",
                                  "builtins.object"]
    assert raised["mro"][0].endswith(".Full") and raised["message"] == "'k'"

    def stub():
        raise NotImplementedError()

    with pytest.raises(NotImplementedError):
        observe.outcome(stub)


DRAWN = """x = f(2)
### BEGIN HIDDEN TESTS
from course.observe import hidden_inputs, record

h = hidden_inputs(n=range(3, 9))
rec = record(y=f(h.n))
### JUDGE
from course.observe import hidden_inputs

h = hidden_inputs(n=range(3, 9))
assert rec["y"] == 2 * h.n, "f doubles"
### END HIDDEN TESTS"""


def test_both_halves_must_draw_their_hidden_inputs_alike():
    assert judge.problems(markers.test_parts(DRAWN), "c") == []
    drifted = DRAWN.replace("h = hidden_inputs(n=range(3, 9))\nassert",
                            "h = hidden_inputs(n=range(3, 10))\nassert")
    found = judge.problems(markers.test_parts(drifted), "c")
    assert found == [
        "c:5: the record part draws hidden_inputs(n=range(3, 9)) but the judge makes no "
        "identical call, so it would expect other inputs than the kernel was given; copy the "
        "line into the judge",
        "c:10: the judge draws hidden_inputs(n=range(3, 10)) but the record part makes no "
        "identical call, so the student's code never saw those inputs; copy the line into "
        "the record part"], found


def test_every_notebook_is_judged_in_the_grader():
    """The course's own notebooks: every graded test cell has a record part and a judge."""
    from course.grading.runner import assignments

    found = []
    for a in assignments(ROOT):
        for path in sorted((ROOT / "source" / a).glob("*.ipynb")):
            for cell in read_notebook(path).cells:
                if engine.is_test(cell):
                    gid = cell.metadata["nbgrader"]["grade_id"]
                    found += judge.problems(markers.test_parts(cell.source, gid), f"{a}:{gid}")
    assert not found, "\n".join(found)


# -- the engine's verdicts, from the protocol -------------------------------------------------


def _client(records, reply_status="ok", outputs=()):
    nb = nbformat.v4.new_notebook()
    job = engine.Job("s", "a", "n", {}, "{}", sandboxed=False)
    client = engine.GradingClient(nb, job, km=None)
    client._records = list(records)
    client._reply = {"content": {"status": reply_status}}
    ran = nbformat.v4.new_code_cell("", outputs=list(outputs))
    return client, ran


PARTS = markers.test_parts(CELL)


def _verdict(records, **kw):
    client, ran = _client(records, **kw)
    return client._decide("g", PARTS, ran, "n1")


def test_a_cell_passes_only_with_its_one_record_and_the_judges_consent():
    assert _verdict([{"nonce": "n1", "record": {"y": 9}}]).passed
    assert "f(3) must be 9" in _verdict([{"nonce": "n1", "record": {"y": 8}}]).message
    assert "before its last statement" in _verdict([]).message
    assert "before its last statement" in _verdict([{"nonce": "guess", "record": {"y": 9}}]).message
    two = [{"nonce": "n1", "record": {"y": 9}}] * 2
    assert "more than one record" in _verdict(two).message


def test_a_value_shown_stderr_or_a_bad_status_fails_the_cell():
    ok = [{"nonce": "n1", "record": {"y": 9}}]
    shown = nbformat.v4.new_output("execute_result", data={"text/plain": "'ok'"},
                                   execution_count=1)
    assert "showed a value" in _verdict(ok, outputs=[shown]).message
    err = nbformat.v4.new_output("stream", name="stderr", text="warning\n")
    assert "stderr" in _verdict(ok, outputs=[err]).message
    assert "status 'aborted'" in _verdict(ok, reply_status="aborted").message
    boom = nbformat.v4.new_output("error", ename="AssertionError", evalue="x was 3",
                                  traceback=[])
    failed = _verdict(ok, outputs=[boom])
    # The kernel had the hidden record part when it raised: its words are not passed on.
    assert failed.ename == "AssertionError" and "x was 3" not in failed.message
    assert "Validate" in failed.message


def test_an_oversized_record_fails_the_cell():
    big = [engine._kept_record({"nonce": "n1",
                                "record": {"y": "x" * (judge.MAX_RECORD_CHARS + 1)}})]
    assert "record is over" in _verdict(big).message
    deep: dict = {}
    for _ in range(200):
        deep = {"d": deep}
    assert "nests deeper" in _verdict([engine._kept_record({"nonce": "n1", "record": deep})]
                                      ).message
    refs = [{"$served": 0, "field": "requests"}] * 1000
    assert "more than 64 times" in _verdict(
        [engine._kept_record({"nonce": "n1", "record": {"y": refs}})]).message


def test_grader_outputs_are_one_plain_line():
    out = engine._error_output("Assertion\x1b[31mError", "line one\x07\nline two")
    assert out.evalue == "line one\\x07\\nline two" and "\n" not in out.traceback[0]
    assert "\x1b" not in out.ename


# -- the sanitised copy -------------------------------------------------------------------------


def test_sanitize_keeps_plain_text_before_the_first_record_and_nothing_after():
    cells = [nbformat.v4.new_code_cell("a", outputs=[
        nbformat.v4.new_output("display_data", data={"text/html": "<b>x</b>",
                                                     "text/plain": "x"}),
        nbformat.v4.new_output("stream", name="stdout", text="hi\n")]),
        nbformat.v4.new_code_cell("b", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="late\n")]),
        nbformat.v4.new_markdown_cell("<script>alert(1)</script> [a](javascript:alert(1))"),
        nbformat.v4.new_raw_cell("<script>alert(2)</script>")]
    nb = sanitize.sanitize(nbformat.v4.new_notebook(cells=cells), first_record=1)
    assert [o.get("data", {}).get("text/plain", o.get("text")) for o in nb.cells[0].outputs] \
        == ["x", "hi\n"]
    assert [o.text for o in nb.cells[1].outputs] == [sanitize.LATE_NOTE]
    assert "late" not in sanitize.LATE_NOTE
    assert "<script" not in nb.cells[2].source and "javascript:" not in nb.cells[2].source
    assert nb.cells[3].cell_type == "markdown" and nb.cells[3].source.startswith("&lt;script")


def _png(width: int = 8, height: int = 6, **info) -> bytes:
    import io

    from PIL import Image, PngImagePlugin

    text = PngImagePlugin.PngInfo()
    for key, value in info.items():
        text.add_text(key, value)
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, format="PNG", pnginfo=text)
    return out.getvalue()


def _image_cell(raw: bytes, mime: str = "image/png") -> nbformat.NotebookNode:
    import base64

    return nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output(
        "display_data", data={mime: base64.b64encode(raw).decode(), "text/plain": "<Figure>"})])


def _kept(cells: list, first_record: int | None = None) -> list[list[dict]]:
    nb = sanitize.sanitize(nbformat.v4.new_notebook(cells=cells), first_record=first_record)
    return [[dict(o.get("data", {})) or {"text": o.get("text")} for o in c.outputs]
            for c in nb.cells]


def test_a_plot_is_kept_as_a_png_the_grader_wrote_with_pixels_only():
    import base64
    import io

    from PIL import Image

    raw = _png(Comment="hidden: assert rec == 42") + b"trailing bytes after IEND"
    [[shown]] = _kept([_image_cell(raw)])
    assert set(shown) == {"image/png"}
    written = base64.b64decode(shown["image/png"])
    assert written != raw and b"hidden" not in written and b"trailing" not in written
    with Image.open(io.BytesIO(written)) as im:
        assert im.format == "PNG" and im.size == (8, 6) and im.getpixel((3, 3)) == (200, 30, 30)


def test_images_a_cell_drew_after_a_record_part_or_past_the_caps_are_not_kept():
    late = _kept([_image_cell(_png()), _image_cell(_png())], first_record=1)
    assert "image/png" in late[0][0] and late[1] == [{"text": sanitize.LATE_NOTE}]
    many = _kept([_image_cell(_png()) for _ in range(boundary.MAX_IMAGES + 2)])
    assert sum("image/png" in out[0] for out in many) == boundary.MAX_IMAGES
    assert "at most 12" in many[-1][0]["text/plain"]
    big = _kept([_image_cell(_png(boundary.MAX_IMAGE_SIDE + 1, 2))])[0][0]["text/plain"]
    assert "4001×2 pixels is not kept" in big
    bomb = _kept([_image_cell(_png(2000, 2001))])[0][0]["text/plain"]  # 4,002,000 pixels
    assert "2000×2001 pixels" in bomb
    for junk, mime in [(b"<svg onload=alert(1)>", "image/png"), (_png(), "image/jpeg")]:
        [[note]] = _kept([_image_cell(junk, mime)])
        assert set(note) == {"text/plain"} and "not kept" in note["text/plain"], note
    assert _kept([_image_cell(b"GIF89a", "image/gif")]) == [[{"text/plain": "<Figure>"}]]
    cell = nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(
        "display_data", data={"image/png": "A" * (boundary.MAX_IMAGE_BYTES + 4)})])
    assert "bytes is not kept" in _kept([cell])[0][0]["text/plain"]
    cell.outputs[0].data["image/png"] = "not base64!"
    assert "not valid base64" in _kept([cell])[0][0]["text/plain"]


def _rendered_text(markdown: str) -> tuple[str, str]:
    """``markdown`` through nbconvert's renderer: the HTML, and the text a reader sees."""
    import html as _html

    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    page = markdown2html_mistune(markdown)
    return page, _html.unescape(re.sub(r"<[^>]+>", "", page))


def test_plain_markdown_escapes_once_so_code_reads_as_written():
    """Issue 28: ``"spent": <this call's cost>`` in a code span read ``&lt;this call's cost>``
    on every feedback page, because a code span shows an escape as written."""
    prose = ('the node returns `{"spent": <this call\'s cost>}`, keyed by `<id>`; '
             "stop when a <= b & c\n\n```python\nif spent <= limit:\n    return '<ok>'\n```\n")
    page, seen = _rendered_text(sanitize.plain_markdown(prose))
    assert "&lt;" not in seen and "&amp;" not in seen, seen
    for words in ('{"spent": <this call\'s cost>}', "<id>", "when a <= b & c",
                  "if spent <= limit:\n    return '<ok>'"):
        assert words in seen, (words, seen)


@pytest.mark.parametrize("hostile", [
    "`</code><script>alert(1)</script>`",
    "```\n</code></pre><img src=x onerror=alert(1)>\n```",
    "```\n<script>alert(1)</script>",  # an unterminated fence
    "[x](`javascript:alert(1)`) [y](<`javascript:alert(1)`>) <`javascript:alert(1)`>",
    "``a ` <img src=x onerror=alert(1)>`` `unclosed <b onclick=alert(1)>x</b>",
    "`a\n\n<script>alert(1)</script>`",  # a blank line ends the span first
])
def test_plain_markdown_lets_no_student_markup_through_code(hostile):
    page, _ = _rendered_text(sanitize.plain_markdown(hostile))
    assert not re.search(r"<(script|img|b|iframe)\b|href=\"\s*javascript", page, re.I), page


# -- no judge line ever reaches a kernel -----------------------------------------------------------


@pytest.mark.slow
def test_no_judge_line_is_sent_to_the_kernel(monkeypatch):
    """Grade Lab 1's solution (unsandboxed is enough: what is sent does not depend on the
    sandbox) while recording every piece of code sent to the kernel."""
    from course.grading.authoring.build import solution_notebook

    source_path = ROOT / "source" / LAB / f"{LAB}.ipynb"
    source = source_path.read_text(encoding="utf-8")
    src_nb = nbformat.reads(source, as_version=4)
    tests = [markers.test_parts(c.source) for c in src_nb.cells if engine.is_test(c)]
    public = {ln.strip() for t in tests for ln in t.kernel.splitlines()}
    judges = {ln.strip() for t in tests for ln in t.judge.splitlines()
              if len(ln.strip()) > 12} - public
    assert judges
    sent: list[str] = []
    real = engine.GradingClient._execute

    async def spy(self, cell, index):
        sent.append(cell.source)
        return await real(self, cell, index)

    monkeypatch.setattr(engine.GradingClient, "_execute", spy)
    sol = nbformat.writes(solution_notebook(src_nb)).encode()
    out = engine.grade_job(engine.Job("s", LAB, LAB, {f"{LAB}.ipynb": sol}, source,
                                      sandboxed=False))
    assert out.ok, out.error
    nb = nbformat.reads(out.executed, as_version=4)
    from course.grading.execution.engine import expected_scores

    assert sum(v or 0 for v in expected_scores(nb, False).values()) == 14
    # whole lines: a judge's `from course.observe import hidden_inputs` is part of the
    # record part's `from course.observe import hidden_inputs, record`, and says nothing
    sent_lines = {ln.strip() for text in sent for ln in text.splitlines()}
    assert not judges & sent_lines
    assert asyncio.iscoroutinefunction(real)


# -- the per-submission budget and the output cap, through `course grade` ----------------------


@pytest.mark.slow
def test_a_slow_submission_meets_its_budget_and_a_flood_its_cap(tmp_path, monkeypatch):
    """A submission that sleeps in every call runs past its budget (2x the solution's time
    here, at least 40 s) and fails with that reason; one that prints 95 MB keeps at most the
    notebook's output cap; a correct classmate graded beside them scores full."""
    from course.grading import runner
    from course.grading.authoring import build
    from course.grading.execution import grade, preflight
    from course.grading.proofs.mutation import submission

    # A floor well above a correct submission's time on a loaded machine (about 10 s) and far
    # below the sleeper's (about 14 calls of 8 s): the budget, not the machine, decides.
    monkeypatch.setattr(preflight, "BUDGET_FLOOR", 40.0)
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path)
    build.generate(course, LAB)
    release = read_notebook(course / "release" / LAB / f"{LAB}.ipynb")
    good = submission(release, read_notebook(course / "source" / LAB / f"{LAB}.ipynb"))
    answer = next(c for c in good.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                  == "agent")

    def put(student, body):
        nb = nbformat.from_dict(good)
        cell = next(c for c in nb.cells if c.get("id") == answer.get("id"))
        cell.source = body
        target = course / "submitted" / student / LAB / f"{LAB}.ipynb"
        target.parent.mkdir(parents=True)
        nbformat.write(nb, target)

    put("good", answer.source)
    put("slow", answer.source.replace('    """Run the tool-calling loop',
                                      '    __import__("time").sleep(8)\n'
                                      '    """Run the tool-calling loop', 1))
    put("flood", answer.source + '\nfor _ in range(100):\n    print("x" * 950_000)\n')
    result = grade.grade_class(course, [LAB], jobs=2, progress=False, budget_factor=2.0)
    runs = {r.student: r for r in result.runs}
    rows = {r.student: r for r in result.rows}
    assert runs["good"].ok and rows["good"].auto_score == 14
    assert not runs["slow"].ok and runs["slow"].error.startswith("timed out after"), runs["slow"]
    assert runs["flood"].ok and rows["flood"].auto_score == 14
    size = (course / "autograded" / "flood" / LAB / f"{LAB}.ipynb").stat().st_size
    assert size < engine.MAX_NOTEBOOK_OUTPUT + 2_000_000, size
