"""The HTML class report: what it counts, that it escapes, that it needs no network.

The fast tests build the page from a small made-up class and read it back with the
standard library's HTML parser. The slow ones grade a tiny class (solution, stub, one bug
of Lab 1) through ``course grade``, open the page it names in headless Chromium and sort it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

from course.grading import runner
from course.grading.cli import main
from course.grading.proofs import mutation
from course.grading.proofs.mutation import Mutant
from course.grading.results.html_report import histogram_bins, render
from course.grading.results.model import (
    CellScore,
    ClassResults,
    GradeRun,
    NotebookScore,
    load_runs,
    save_runs,
)

from . import ROOT

CELLS = ("one_message", "step_cap", "stop_reason")
HOSTILE = "<script>alert('id')</script>"
HOSTILE_REASON = '<img src=x onerror="alert(1)"> replaced grade_cell'


class Page(HTMLParser):
    """Every element as (tag, attributes, ancestor tags), and the text of every <script>."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
        self.stack: list[str] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}, tuple(self.stack)))
        if tag not in ("meta", "br", "img", "input"):
            self.stack.append(tag)
        if tag == "script":
            self.scripts.append("")

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}, tuple(self.stack)))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "script":
            self.scripts[-1] += data
        self.text.append(data)

    def all(self, tag: str, cls: str | None = None) -> list[dict[str, str]]:
        return [a for t, a, _ in self.elements
                if t == tag and (cls is None or cls in a.get("class", "").split())]


def _row(student: str, lost: set[str], assignment: str = "lab", pts: float = 2) -> NotebookScore:
    return NotebookScore(student, assignment, assignment, [
        *(CellScore(g, 0 if g in lost else pts, pts, True) for g in CELLS),
        CellScore("essay", None, 3, False)])


MUTANTS = {"lab": [Mutant("split", "results split across user messages", "c", "o", "n",
                          {"one_message"}),
                   Mutant("cap", "no step cap", "c", "o", "n", {"step_cap", "stop_reason"})]}


@pytest.fixture(scope="module")
def page() -> tuple[str, Page]:
    rows = [_row("ann", set()), _row("bob", {"one_message"}), _row("cy", {"one_message"}),
            _row("dee", {"step_cap", "stop_reason"}), _row(HOSTILE, set(CELLS)),
            _row("gone", set()), _row("eve", set(CELLS))]
    runs = [GradeRun(r.student, "lab", ok=r.student != "gone", seconds=1.0) for r in rows]
    runs[-2].error = "kernel died: " + HOSTILE  # "gone": its stale grades are dropped
    reviews = {"eve/lab": [HOSTILE_REASON, "deleted test cell step_cap"]}
    text = render(ClassResults(rows, runs, reviews, MUTANTS),
                  generated=datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    return text, Page(text)


def test_every_student_and_cell_is_in_the_heatmap_with_its_score(page):
    _, doc = page
    students = {"ann", "bob", "cy", "dee", HOSTILE, "eve"}  # "gone" failed: no stale row
    rows = doc.all("tr")
    assert {r["data-student"] for r in rows if "data-student" in r and "data-total" in r} \
        == students
    tds = [(a, anc) for t, a, anc in doc.elements if t == "td" and "data-cell" in a]
    assert len(tds) == len(students) * len(CELLS)
    assert {a["data-cell"] for a, _ in tds} == set(CELLS)  # "essay" is hand-graded: no column
    heads = doc.all("th", "c")
    assert [h["data-cell"] for h in heads] == list(CELLS)
    fail = [a for a, _ in tds if "fail" in a["class"].split()]
    passed = [a for a, _ in tds if "pass" in a["class"].split()]
    # bob and cy lose one cell, dee two, the hostile id and eve all three
    assert (len(fail), len(passed)) == (1 + 1 + 2 + 3 + 3, 18 - 10)
    assert all(a["data-score"] == "0" for a in fail) and all(a["data-score"] == "2"
                                                              for a in passed)


def test_pass_rates_count_students_with_full_points(page):
    _, doc = page
    rates = {r["data-cell"]: (r["data-passed"], r["data-graded"])
             for r in doc.all("tr") if "data-passed" in r}
    assert rates == {"one_message": ("2", "6"), "step_cap": ("3", "6"),
                     "stop_reason": ("3", "6")}
    assert [h["data-rate"] for h in doc.all("th", "c")] == ["0.3333", "0.5000", "0.5000"]


def test_diagnosed_bugs_are_counted_per_student(page):
    text, doc = page
    counts = [r["data-count"] for r in doc.all("tr") if "data-count" in r]
    assert counts == ["2", "1", "1"]  # eve awaits review: her zeros are no diagnosis
    assert "<td>2</td><td>lab</td><td>looks like results split across user messages</td>" \
        "<td>bob, cy</td>" in text
    assert re.search(r"<td>1</td><td>lab</td><td>every autograded cell lost[^<]*</td>"
                     r"<td>&lt;script&gt;alert\(&#x27;id&#x27;\)&lt;/script&gt;</td>", text)
    assert "<td>awaiting review: autograded cells score 0 until cleared</td>" in text
    assert "<td>1</td><td>lab</td><td>looks like no step cap</td><td>dee</td>" in text


def test_histogram_has_a_bar_per_point_and_counts_every_student(page):
    _, doc = page
    bins = doc.all("rect", "bin")
    assert [b["data-label"] for b in bins] == [str(i) for i in range(7)]
    # totals: ann 6, bob 4, cy 4, dee 2, hostile 0, eve 0 (flagged scores stay as graded)
    assert [int(b["data-count"]) for b in bins] == [2, 0, 1, 0, 2, 0, 1]


def test_histogram_bins_fractions_and_large_assignments():
    assert histogram_bins([0.5, 1.99, 2], 2) == [("0", 1), ("1", 1), ("2", 1)]
    big = histogram_bins([0, 49, 50, 99.9, 100], 100)
    assert len(big) == 10 and big[0] == ("0-10", 1) and big[4] == ("40-50", 1)
    assert big[5] == ("50-60", 1) and big[9] == ("90-100", 2)


def test_failed_and_flagged_submissions_are_listed_with_their_reason(page):
    text, doc = page
    problems = [(r["data-student"], r["class"]) for r in doc.all("tr")
                if r.get("class") in ("failed", "review")]
    assert problems == [("gone", "failed"), ("eve", "review")]
    assert ("<td>gone</td><td>lab</td><td>failed</td><td>kernel died: &lt;script&gt;"
            in text)
    assert "deleted test cell step_cap; autograded cells score 0 until cleared" in text
    flagged = [r["data-student"] for r in doc.all("tr", "flagged")]
    assert flagged == ["eve"]


def test_student_strings_are_escaped_and_only_the_page_script_runs(page):
    text, doc = page
    assert HOSTILE not in text and "<img" not in text
    assert "&lt;script&gt;alert(&#x27;id&#x27;)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in text
    assert len(doc.scripts) == 1 and "alert" not in doc.scripts[0]
    handlers = [(t, k) for t, a, _ in doc.elements for k in a if k.startswith("on")]
    assert handlers == []
    # the policy runs the page's own script only (by its hash) and forbids every fetch
    csp = next(a["content"] for a in doc.all("meta") if a.get("http-equiv"))
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]


def test_the_page_is_self_contained(page):
    text, doc = page
    assert not re.findall(r"https?://", text, re.I)
    for tag, attrs, _ in doc.elements:
        for key in ("src", "href", "xlink:href", "srcset", "data"):
            assert key not in attrs or attrs[key].startswith(("data:", "#")), (tag, attrs)
    assert "@import" not in text and "url(" not in text


def test_a_class_with_nothing_graded_still_renders():
    doc = Page(render(ClassResults([])))
    assert len(doc.scripts) == 1 and "Nothing graded yet." in "".join(doc.text)


def test_grade_runs_are_recorded_and_merged(tmp_path):
    save_runs(tmp_path, [GradeRun("a", "lab", ok=False, error="<boom>"),
                         GradeRun("b", "lab", ok=True)])
    save_runs(tmp_path, [GradeRun("a", "lab", ok=True, review=["x"])])
    got = {(r.student, r.assignment): r for r in load_runs(tmp_path)}
    assert got[("a", "lab")].ok and got[("a", "lab")].review == ["x"]
    assert got[("b", "lab")].ok and len(got) == 2


def test_report_without_grades_is_one_clear_error(capsys, tmp_path):
    course = runner.scratch_course(ROOT, ["lab01_tool_loop"], base=tmp_path)
    (course / "gradebook.db").unlink(missing_ok=True)
    code = main(["--course-dir", str(course), "report"])
    err = capsys.readouterr().err
    assert code == 2 and "nothing graded" in err and "course grade" in err


# -- a tiny class graded for real: the commands, then the page in a browser ------------------

LAB = "lab01_tool_loop"


@pytest.fixture(scope="module")
def graded(graded_class):
    """Lab 1's solution, stub and first seeded bug, graded by ``course grade`` (shared with
    the command-line tests: see ``conftest.graded_class``)."""
    course, code, out = graded_class
    assert code == 0, out
    return course, out


@pytest.mark.slow
def test_grade_names_the_report_and_report_rewrites_it(graded, tmp_path, capsys):
    course, out = graded
    url = next(ln.split(": ", 1)[1] for ln in out.splitlines()
               if ln.startswith("class report: "))
    assert url == (course / "reports" / "class_report.html").resolve().as_uri()
    assert "autograded 3/3 submissions" in out and "== lab01_tool_loop/" in out
    page = (course / "reports" / "class_report.html").read_text()
    doc = Page(page)
    students = {r["data-student"] for r in doc.all("tr") if "data-total" in r}
    assert students == {"solution", "stub", "bug-split_results"}
    graded_cells = [h["data-cell"] for h in doc.all("th", "c")]
    assert len(doc.all("td", "c")) - len(graded_cells) == 3 * len(graded_cells)  # + pass row
    assert not re.findall(r"https?://", page)
    target = tmp_path / "elsewhere" / "report.html"
    assert main(["--course-dir", str(course), "report", "--out", str(target), LAB]) == 0
    assert f"class report: {target.resolve().as_uri()}" in capsys.readouterr().out
    assert {r["data-student"] for r in Page(target.read_text()).all("tr")
            if "data-total" in r} == students


@pytest.mark.slow
@pytest.mark.browser
def test_the_report_renders_and_sorts_in_chromium(graded, tmp_path):
    from playwright.sync_api import sync_playwright

    from .test_browser import CHROMIUM, FLAGS, _require_browser

    _require_browser()
    course, _ = graded
    # one hostile student id added to the real grades: it must show as text, never run
    from course.grading.results.html_report import write
    from course.grading.results.model import load_runs as runs_of
    from course.grading.results.model import needs_review, scores

    rows = scores(course)
    evil = NotebookScore(HOSTILE, rows[0].assignment, rows[0].notebook,
                         [CellScore(c.grade_id, 0, c.max_score, c.auto) for c in rows[0].cells])
    seeded = {LAB: mutation.load_mutants(ROOT / "tests" / "mutants" / f"{LAB}.py")}
    path = write(render(ClassResults([*rows, evil], runs_of(course), needs_review(course),
                                     seeded)),
                 tmp_path / "report.html")

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        fetched: list[str] = []
        dialogs: list[str] = []
        page.on("request", lambda r: fetched.append(r.url))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(path.as_uri())
        table = page.locator("table.heatmap").first
        table.wait_for()
        cells = table.locator("tbody td.c")
        n_cols = table.locator("thead th.c").count()
        assert n_cols >= 2 and cells.count() == 4 * n_cols
        for i in range(cells.count()):
            box = cells.nth(i).bounding_box()
            assert box and box["width"] > 5 and box["height"] > 5, (i, box)
        colors = {cells.nth(i).evaluate("e => getComputedStyle(e).backgroundColor")
                  for i in range(cells.count())}
        assert len(colors) >= 2, colors  # passes and failures look different
        assert page.locator("svg.histogram rect.bin").first.bounding_box()

        def order() -> list[str]:
            return table.locator("tbody tr").evaluate_all(
                "rows => rows.map(r => r.dataset.student)")

        assert order() == sorted(order())
        table.locator("thead th[data-sort='score']").click()
        assert order()[0] == "solution" and set(order()[-2:]) == {"stub", HOSTILE}
        lost = page.locator("table.heatmap thead th.c[data-cell='parallel_results_one_message']")
        lost.click()
        assert order()[-1] == "solution" and "bug-split_results" in order()[:3]
        table.locator("thead th[data-sort='student']").click()
        assert order() == sorted(order())
        before = table.locator("thead th.c").evaluate_all("hs => hs.map(h => h.dataset.cell)")
        page.locator("button[data-columns='rate']").first.click()
        after = table.locator("thead th.c").evaluate_all("hs => hs.map(h => h.dataset.cell)")
        rates = table.locator("thead th.c").evaluate_all(
            "hs => hs.map(h => Number(h.dataset.rate))")
        assert sorted(after) == sorted(before) and rates == sorted(rates)
        first_row = table.locator("tbody tr").first.locator("td.c").evaluate_all(
            "tds => tds.map(t => t.dataset.cell)")
        assert first_row == after, "the body cells follow their column"
        page.screenshot(path=str(tmp_path / "class-report.png"), full_page=True)
        assert page.get_by_text(HOSTILE).count() >= 1  # shown as text
        bug = seeded[LAB][0]
        row = table.locator("tbody tr[data-student='bug-split_results']")
        assert row.locator("td").last.inner_text() == f"looks like {bug.bug}"
        counted = page.locator("table.diagnoses tr", has_text=f"looks like {bug.bug}")
        assert counted.locator("td").first.inner_text() == "1"
        browser.close()
    assert dialogs == [], f"a student id ran as script: {dialogs}"
    assert fetched and all(u.startswith("file:") for u in fetched), \
        f"the page fetched something: {fetched}"
