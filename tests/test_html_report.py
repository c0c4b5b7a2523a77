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
        self.source = text
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

    def text_of(self, tag: str, **attrs: str) -> str:
        """The text inside the first ``tag`` element with these attributes."""
        return TextOf(self.source, tag, attrs).text


class TextOf(HTMLParser):
    """The text of the first element ``tag`` whose attributes include ``attrs``, with a
    space where a block (cell, paragraph, list item) starts or ends."""

    BLOCKS = {"td", "th", "p", "li", "ul", "tr", "div", "details", "summary"}

    def __init__(self, page: str, tag: str, attrs: dict[str, str]) -> None:
        super().__init__(convert_charrefs=True)
        self.tag, self.want, self.depth, self.done = tag, attrs, 0, False
        self.parts: list[str] = []
        self.feed(page)
        self.text = "".join(self.parts)

    def handle_starttag(self, tag, attrs):
        if self.done:
            return
        if self.depth:
            self.depth += tag == self.tag
        elif tag == self.tag and self.want.items() <= {k: v or "" for k, v in attrs}.items():
            self.depth = 1
        if self.depth and tag in self.BLOCKS:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if self.depth and not self.done:
            if tag in self.BLOCKS:
                self.parts.append(" ")
            if tag == self.tag:
                self.depth -= 1
                self.done = not self.depth

    def handle_data(self, data):
        if self.depth and not self.done:
            self.parts.append(data)


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
    tds = [(a, anc) for t, a, anc in doc.elements
           if t == "td" and "data-cell" in a and "tbody" in anc]
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


def test_pass_rates_count_students_with_full_points_in_the_grids_footer_only(page):
    text, doc = page
    rates = {r["data-cell"]: (r["data-passed"], r["data-graded"])
             for r in doc.all("td") if "data-passed" in r}
    assert rates == {"one_message": ("2", "6"), "step_cap": ("3", "6"),
                     "stop_reason": ("3", "6")}
    assert [h["data-rate"] for h in doc.all("th", "c")] == ["0.3333", "0.5000", "0.5000"]
    # the footer is the one place: no second table repeats it, row by row
    assert [t["class"].split()[0] for t in doc.all("table")] == \
        ["problems", "summary", "diagnoses", "heatmap"]
    assert "lab/lab" not in text


def test_diagnosed_bugs_are_counted_per_student(page):
    _, doc = page
    rows = [(r["data-count"], r["id"]) for r in doc.all("tr") if "data-count" in r]
    assert [n for n, _ in rows] == ["2", "1", "1"]  # eve awaits review: no diagnosis
    said = {n: " ".join(doc.text_of("tr", id=i).split()) for n, i in rows[:1]}
    assert said["2"].startswith("2 Looks like split: results split across user messages")
    assert said["2"].endswith("bob, cy")
    assert [" ".join(doc.text_of("tr", id=i).split()) for _, i in rows[1:]] == [
        f"1 Every autograded cell lost: nothing implemented yet, or the notebook stops before "
        f"its first graded cell. {HOSTILE}",
        "1 Looks like cap: no step cap This bug loses: step_cap, stop_reason. dee"]
    grid = {r["data-student"]: " ".join(doc.text_of("tr", **{"data-student": r["data-student"],
                                                              "data-total": r["data-total"]})
                                        .split())
            for r in doc.all("tr") if "data-total" in r}
    assert grid["eve"].endswith("0/6 awaiting review")
    assert grid["bob"].endswith("4/6 split") and grid["ann"].endswith("6/6 full marks")


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


def test_the_page_opens_with_contents_then_what_to_act_on(page):
    """A table of contents, then the summary: failed and flagged submissions first, then
    the per-assignment figures; the diagnoses, the grid and the histograms after it."""
    _, doc = page
    at = {a["id"]: i for i, (_, a, _) in enumerate(doc.elements) if "id" in a}
    toc = [a["href"] for t, a, anc in doc.elements if t == "a" and "nav" in anc]
    assert toc == ["#summary", "#attention", "#diagnoses", "#heatmap", "#histograms"]
    nav = next(i for i, (t, _, _) in enumerate(doc.elements) if t == "nav")
    assert nav < at["summary"] < at["attention"] < at["diagnoses"] < at["heatmap"] \
        < at["histograms"]
    tables = [(i, a["class"].split()[0]) for i, (t, a, _) in enumerate(doc.elements)
              if t == "table"]
    assert [c for _, c in tables][:2] == ["problems", "summary"]
    assert at["attention"] < tables[0][0] < tables[1][0] < at["diagnoses"]


def test_every_link_on_the_page_lands_on_an_element(page):
    _, doc = page
    ids = [a["id"] for _, a, _ in doc.elements if "id" in a]
    assert len(ids) == len(set(ids)), "ids must be unique"
    hrefs = [a["href"] for a in doc.all("a")]
    assert hrefs and all(h.startswith("#") for h in hrefs), hrefs  # no feedback pages here
    assert {h[1:] for h in hrefs} <= set(ids)
    # each diagnosis in the grid links to its row among the diagnosed bugs
    diagnosed = {a["id"] for a in doc.all("tr") if "data-count" in a}
    start = next(i for i, (t, a, _) in enumerate(doc.elements)
                 if t == "table" and "heatmap" in a["class"])
    grid = [a["href"][1:] for t, a, anc in doc.elements[start:]
            if t == "a" and "tbody" in anc and a["href"][1:] in diagnosed]
    assert len(grid) == 4  # bob, cy, dee, the hostile id (eve awaits review, ann full)


def test_the_summary_gives_each_assignments_figures(page):
    _, doc = page
    # totals: ann 6, bob 4, cy 4, dee 2, the hostile id 0, eve 0 (awaiting review); gone
    # failed: mean 16/6, median 3, one at full marks; its most common diagnoses, with counts
    said = " ".join(doc.text_of("tr", **{"data-assignment": "lab"}).split())
    assert said == "lab 6 2.7 / 6 3 1 (17%) 1 1 2 split 1 nothing implemented? 1 cap"
    row = next(i for i, (t, a, _) in enumerate(doc.elements)
               if t == "tr" and a.get("data-assignment") == "lab")
    end = next(i for i, (t, _, _) in enumerate(doc.elements) if t == "tr" and i > row)
    links = [a["href"] for t, a, _ in doc.elements[row:end] if t == "a"]
    rows = {a["id"]: a["data-count"] for a in doc.all("tr") if "data-count" in a}
    grid = {a["id"] for a in doc.all("section", "notebook")}
    assert links[0][1:] in grid and [rows[h[1:]] for h in links[1:]] == ["2", "1", "1"]


def test_diagnoses_read_in_plain_words():
    """The best match's short name and its sentence without the note of where it comes
    from; the others that lose the same cells as a short list, the rest folded away."""
    twins = [Mutant(name, bug, "c", "o", "n", {"one_message"}) for name, bug in [
        ("split_results", "seed 001 ex.1 failure 3: each tool result sent in its own user "
                          "message"),
        ("results_newest_first", "tool results collected newest first"),
        ("batch_per_tool", "issue 32: one user message per tool"),
        ("lab_spec_twin", "lab 6 spec: a fourth way to lose the same cell"),
        ("fifth_twin", "spec: a fifth way"),
    ]]
    near = Mutant("no_cap", "seed 001 ex.1 failure 5: no cap on the number of iterations",
                  "c", "o", "n", {"step_cap", "stop_reason", "one_message"})
    rows = [_row("bob", {"one_message"}), _row("dee", {"step_cap", "stop_reason"})]
    doc = Page(render(ClassResults(rows, [], {}, {"lab": [*twins, near]})))
    said = {" ".join(doc.text_of("tr", id=a["id"]).split()).split()[-1]:
            " ".join(doc.text_of("tr", id=a["id"]).split())
            for a in doc.all("tr") if "data-count" in a}
    exact, closest = said["bob"], said["dee"]
    assert exact == (
        "1 Looks like split results: each tool result sent in its own user message "
        "This bug loses: one_message. Or one of these, which lose the same cells: "
        "results newest first: tool results collected newest first "
        "batch per tool: one user message per tool "
        "lab spec twin: a fourth way to lose the same cell "
        "and 1 more fifth twin: a fifth way bob")
    assert closest == ("1 Closest to no cap: no cap on the number of iterations This bug "
                       "loses: one_message, step_cap, stop_reason; the lost cells overlap it "
                       "by 67%. dee")
    grid = {r["data-student"]: " ".join(doc.text_of("tr", **{"data-student": r["data-student"],
                                                              "data-total": r["data-total"]})
                                        .split()).split("/6 ")[1]
            for r in doc.all("tr") if "data-total" in r}
    assert grid == {"bob": "split results (or 4 more)", "dee": "closest: no cap"}
    assert len(doc.all("details")) == 1


def test_histograms_label_both_axes(page):
    _, doc = page
    assert doc.text_of("text", **{"class": "axis-label x"}) == "autograded points (out of 6)"
    assert doc.text_of("text", **{"class": "axis-label y"}) == "students"
    ticks = [doc.text_of("text", **{"class": "tick y", "y": a["y"]})
             for a in doc.all("text", "tick") if "y" in a["class"].split()]
    assert ticks == ["0", "2"]  # the tallest bar holds 2 students


def _feedback(course, student, assignment="lab", notebook="lab"):
    page = course / "feedback" / student / assignment / f"{notebook}.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"<p>feedback of {student}</p>")
    return page


@pytest.mark.parametrize("where", ["in the course", "elsewhere"])
def test_student_names_link_to_their_feedback_pages_where_they_exist(tmp_path, where):
    from urllib.parse import unquote

    from course.grading.results import html_report

    course = tmp_path / "course"
    odd = "o'neil #2 %41? \"<i>"  # a name a URL must encode, and a page must escape
    pages = {s: _feedback(course, s).resolve() for s in ("bob", odd, "eve")}
    outside = tmp_path / "secret.html"
    outside.write_text("not feedback")
    (course / "feedback" / "mallory" / "lab").mkdir(parents=True)
    (course / "feedback" / "mallory" / "lab" / "lab.html").symlink_to(outside)
    rows = [_row(s, lost) for s, lost in [("ann", set()), ("bob", {"one_message"}),
                                          (odd, {"one_message"}), ("mallory", set()),
                                          ("eve", set(CELLS))]]
    runs = [GradeRun(r.student, "lab", ok=True) for r in rows]
    target = (course / html_report.REPORT_PATH if where == "in the course"
              else tmp_path / "elsewhere" / "deep" / "report.html")
    page = render(ClassResults(rows, runs, {"eve/lab": ["builtin all replaced"]}, MUTANTS),
                  links=html_report.Links(course, target))
    doc = Page(page)
    linked: dict[str, set[str]] = {}
    for t, a, anc in doc.elements:
        if t == "a" and not a["href"].startswith("#"):
            assert not re.match(r"[a-z][a-z0-9+.-]*:|/", a["href"]), a["href"]  # relative
            assert set(a["href"]) <= set("abcdefghijklmnopqrstuvwxyz0123456789-_./%"
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ~"), a["href"]
            linked.setdefault(a["href"], set()).add(anc[-1])
    got = {(target.parent / unquote(h)).resolve() for h in linked}
    assert got == set(pages.values())  # no dead link, none to ann (no page) or out of feedback
    assert all(p.is_file() for p in got)
    # bob's name links in the grid and among the diagnosed bugs; eve's in "needs attention"
    where_bob = linked[next(h for h in linked if unquote(h).endswith("/bob/lab/lab.html"))]
    assert where_bob == {"th", "td"}
    flagged = " ".join(doc.text_of("tr", **{"class": "review"}).split())
    assert flagged.startswith("eve lab needs review")
    assert "A student's name links to their feedback page" in page
    assert "<i>" not in page and "o&#x27;neil #2 %41? &quot;&lt;i&gt;" in page
    nothing = render(ClassResults(rows, runs), links=html_report.Links(tmp_path / "none", target))
    assert all(a["href"].startswith("#") for a in Page(nothing).all("a"))
    assert "No feedback page is written yet" in nothing


def test_failed_and_flagged_submissions_are_listed_with_their_reason(page):
    text, doc = page
    problems = [(r["data-student"], r["class"]) for r in doc.all("tr")
                if r.get("class") in ("failed", "review")]
    assert problems == [("gone", "failed"), ("eve", "review")]
    said = [" ".join(doc.text_of("tr", **{"class": c, "data-student": s}).split())
            for s, c in problems]
    assert said == [f"gone lab failed kernel died: {HOSTILE}",
                    f"eve lab needs review {HOSTILE_REASON}; deleted test cell step_cap; "
                    "autograded cells score 0 until cleared"]
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
    # an assignment whose every submission failed: listed first, and counted as such
    doc = Page(render(ClassResults([], [GradeRun("ann", "lab", ok=False, error="timed out")])))
    assert " ".join(doc.text_of("tr", **{"data-assignment": "lab"}).split()) \
        == "lab 0 - - 0 (-) 1 0 none"
    assert " ".join(doc.text_of("tr", **{"class": "failed"}).split()) \
        == "ann lab failed timed out"


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
        said = row.locator("td.diag").inner_text()
        assert said.split(" (or ")[0] == bug.name.replace("_", " "), said
        row.locator("td.diag a").click()  # to the bug's row among the diagnosed bugs
        counted = page.locator("table.diagnoses tr:target")
        assert counted.locator("td").first.inner_text() == "1"
        assert counted.locator("td.who").inner_text() == "bug-split_results"
        assert "each tool result sent in its own user message" in counted.inner_text()
        browser.close()
    assert dialogs == [], f"a student id ran as script: {dialogs}"
    assert fetched and all(u.startswith("file:") for u in fetched), \
        f"the page fetched something: {fetched}"


# -- the page in a browser, at a laptop's width and a desktop's --------------------------------

#: The notebook with the most autograded cells, and one whose seeded bugs share their cells.
WIDE = ("capstone_integrated_loop", "lab03_budget")


def _seeded_class(course) -> ClassResults:
    """Per notebook of :data:`WIDE`: the solution, the stub, a student per seeded bug (up to
    11, each losing exactly that bug's cells, with the bug's long name as id), one hostile
    id, one flagged and one failed submission; feedback pages for all but the solution."""
    rows, runs, seeded = [], [], {}
    for a in WIDE:
        cells = [c for c in runner.read_notebook(ROOT / "source" / a / f"{a}.ipynb").cells
                 if c.metadata.get("nbgrader", {}).get("grade")]
        graded = [c.metadata["nbgrader"] for c in cells]
        auto = {c.metadata["nbgrader"]["grade_id"] for c in cells if c.cell_type == "code"}
        seeded[a] = mutation.load_mutants(ROOT / "tests" / "mutants" / f"{a}.py")
        losses = {"solution": set(), "stub": auto, HOSTILE: {sorted(auto)[0]},
                  "flagged": set(), **{f"bug-{m.name}": set(m.loses) for m in seeded[a][:11]}}
        for student, lost in losses.items():
            rows.append(NotebookScore(student, a, a, [
                CellScore(g["grade_id"], (0 if g["grade_id"] in lost else g["points"])
                          if g["grade_id"] in auto else None, g["points"], g["grade_id"] in auto)
                for g in graded]))
            runs.append(GradeRun(student, a, ok=True))
            if student not in ("solution", HOSTILE):
                _feedback(course, student, a, a)
        runs.append(GradeRun("failed", a, ok=False, error="kernel died in cell agent (exit 1)"))
    return ClassResults(rows, runs, {f"flagged/{WIDE[1]}": [HOSTILE_REASON]}, seeded)


@pytest.mark.slow
@pytest.mark.browser
def test_the_report_reads_at_1024_and_1440_px_without_sideways_scrolling(tmp_path):
    """No element of the page needs sideways scrolling at either width, the summary is on
    the first screen, and a student's link opens their feedback page."""
    from playwright.sync_api import sync_playwright

    from course.grading.results import html_report

    from .test_browser import CHROMIUM, FLAGS, Shots, _require_browser

    _require_browser()
    course = tmp_path / "course"
    target = course / html_report.REPORT_PATH
    path = html_report.write(render(_seeded_class(course),
                                    links=html_report.Links(course, target)), target)
    shots = Shots(tmp_path / "screenshots")
    measured = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        for width in (1024, 1440):
            page = browser.new_page(viewport={"width": width, "height": 800})
            page.goto(path.as_uri())
            page.locator("table.heatmap").first.wait_for()
            measured[width] = page.evaluate("""() => {
              const d = document.documentElement;
              const over = [...document.querySelectorAll('*')].filter(e =>
                e instanceof HTMLElement && e.clientWidth > 0
                && e.scrollWidth > e.clientWidth + 1);
              const top = s => document.querySelector(s).getBoundingClientRect().top;
              return {page: [d.scrollWidth, d.clientWidth],
                      over: over.map(e => e.tagName + '.' + e.className + ' '
                                     + e.scrollWidth + '>' + e.clientWidth),
                      summary: top('#summary'), attention: top('#attention'),
                      table: top('table.summary'),
                      row: document.querySelector('table.summary tbody tr')
                        .getBoundingClientRect().bottom,
                      fold: innerHeight};
            }""")
            shots(page, f"class-report-{width}")
            page.screenshot(path=str(tmp_path / f"class-report-{width}-full.png"), full_page=True)
            m = measured[width]
            assert m["page"][0] <= m["page"][1], (width, m)
            assert m["over"] == [], (width, m["over"])
            # the summary is on the first screen: the failures and flags, then the first
            # assignment's figures
            assert m["summary"] < m["attention"] < m["table"] < m["row"] <= m["fold"], (width, m)
            # a diagnosis cell is wide enough for words, not a word per line
            narrowest = page.locator("table.heatmap td.diag").evaluate_all(
                "tds => Math.min(...tds.map(t => t.getBoundingClientRect().width))")
            assert narrowest >= 100, (width, narrowest)
            page.close()
        page = browser.new_page(viewport={"width": 1024, "height": 800})
        page.goto(path.as_uri())
        page.locator("table.heatmap tr[data-student='stub'] a.feedback").first.click()
        page.wait_for_load_state()
        assert page.url == (course / "feedback" / "stub" / WIDE[0] / f"{WIDE[0]}.html"
                            ).resolve().as_uri()
        assert page.inner_text("body") == "feedback of stub"
        browser.close()
    print("class report at 1024/1440 px:", measured)
