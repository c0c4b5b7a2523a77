"""Feedback pages as a student reads them, in headless Chromium: a correct, a stub and a
buggy submission of Lab 1 (``conftest.graded_class``), and Lab 3's solution, which draws
plots before its first test and has a formula.

For each page, at 1024 and 1280 px: the summary at the top names every graded cell with a
verdict in words; failed cells are the ones the submission should fail (none, all, the
seeded bug's); each failed check's message is in its panel; nothing needs sideways
scrolling; no escaped markup (``&lt;``), no raw TeX, no sandbox warning text; and Lab 3's
page shows its plots and draws its formula. Screenshots land in the test's folder (and in
``$COURSE_SCREENSHOTS`` when set). No pixel comparisons.
"""

from __future__ import annotations

import pytest

from course.grading import runner
from course.grading.authoring import build
from course.grading.execution import grade
from course.grading.proofs import mutation

from . import ROOT
from .test_browser import CHROMIUM, FLAGS, OFF_LOOPBACK, Shots, _require_browser
from .test_browser_xss import RAW_TEX, WIDE_ELEMENTS

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LAB1, LAB3 = "lab01_tool_loop", "lab03_budget"
PASSED, FAILED, WAITING = "\u2713 passed", "\u2717 failed", "\u2026 waiting for manual grading"

READ = """() => ({
  summary: [...document.querySelectorAll('#summary tbody tr')].map(r =>
      [r.querySelector('a').getAttribute('href').slice(1),
       r.querySelector('.course-verdict').innerText.trim()]),
  missing: [...document.querySelectorAll('#summary a')]
      .map(a => a.getAttribute('href').slice(1)).filter(id => !document.getElementById(id)),
  messages: Object.fromEntries([...document.querySelectorAll('.nbgrader_cell')]
      .filter(p => p.querySelector('a[id]') && p.querySelector('.course-message'))
      .map(p => [p.querySelector('a[id]').id, p.querySelector('.course-message').innerText])),
  images: [...document.querySelectorAll('img')].filter(i => i.naturalWidth > 0).length,
  formulas: [...document.querySelectorAll('math')]
      .filter(m => m.getBoundingClientRect().width > 0).length,
  summaryTop: document.querySelector('#summary').getBoundingClientRect().top,
  text: document.body.innerText,
})"""


@pytest.fixture(scope="module")
def pages(graded_class, tmp_path_factory):
    """Feedback for the graded class of Lab 1, and Lab 3's solution graded on its own."""
    course, code, out = graded_class
    assert code == 0, out
    errors = grade.write_feedback(course, [LAB1])
    assert not errors, errors
    lab3 = runner.scratch_course(ROOT, [LAB3], base=tmp_path_factory.mktemp("lab3"))
    build.generate(lab3, LAB3)
    mutation.write_samples(lab3, mutation.samples(ROOT, LAB3, "none")[:1])
    result = grade.grade_class(lab3, [LAB3], jobs=1, progress=False)
    assert result.ok, [r.error for r in result.runs]
    assert not grade.write_feedback(lab3, [LAB3])
    bug = mutation.samples(ROOT, LAB1, "first")[2]
    return {
        "solution": course / "feedback" / "solution" / LAB1 / f"{LAB1}.html",
        "stub": course / "feedback" / "stub" / LAB1 / f"{LAB1}.html",
        bug.student: course / "feedback" / bug.student / LAB1 / f"{LAB1}.html",
        "lab3": lab3 / "feedback" / "solution" / LAB3 / f"{LAB3}.html",
        "_bug": bug,
    }


def _checks(nb_path) -> tuple[set[str], set[str]]:
    """The autograded checks (graded code cells) and the written answers (graded markdown
    cells) of a source notebook."""
    graded = [(c.cell_type, c.metadata["nbgrader"]["grade_id"])
              for c in runner.read_notebook(nb_path).cells
              if c.metadata.get("nbgrader", {}).get("grade")]
    return ({gid for kind, gid in graded if kind == "code"},
            {gid for kind, gid in graded if kind == "markdown"})


def test_feedback_pages_read_in_ten_seconds(pages, tmp_path):
    _require_browser()
    from playwright.sync_api import sync_playwright

    shots = Shots(tmp_path / "screenshots")
    bug = pages.pop("_bug")
    checks, written = _checks(ROOT / "source" / LAB1 / f"{LAB1}.ipynb")
    assert checks and written
    expected_failures = {"solution": set(), "stub": checks, bug.student: set(bug.mutant.loses)}
    read: dict[tuple[str, int], dict] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        context = browser.new_context()
        allowed = {p.as_uri() for p in pages.values()}
        context.route(lambda url: OFF_LOOPBACK(url) and url not in allowed,
                      lambda route: route.abort())
        for name, path in pages.items():
            assert path.is_file(), path
            for width in (1024, 1280):
                page = context.new_page()
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(path.as_uri(), wait_until="load")
                shots(page, f"feedback-{name}-{width}")
                read[name, width] = {**page.evaluate(READ), "wide": page.evaluate(WIDE_ELEMENTS),
                                     "raw_tex": page.evaluate(RAW_TEX)}
                page.close()
        browser.close()

    for (name, width), r in read.items():
        where = f"{name} at {width} px"
        assert r["summaryTop"] < 400, f"{where}: the summary is not at the top"
        assert not r["missing"], (where, r["missing"])
        assert not r["wide"], (where, r["wide"])
        assert "&lt;" not in r["text"] and "&amp;" not in r["text"], where
        assert not any(w in r["text"] for w in ("Fontconfig", "UserWarning", "SAWarning")), \
            where
        assert not r["raw_tex"], (where, r["raw_tex"])
        if name == "lab3":
            continue
        verdicts = dict(r["summary"])
        assert set(verdicts) == checks | written, (where, sorted(verdicts))
        assert {verdicts[w] for w in written} == {WAITING}, where
        failed = {gid for gid in checks if verdicts[gid] != PASSED}
        assert failed == expected_failures[name], (where, sorted(failed))
        assert all(verdicts[gid].startswith(FAILED) for gid in failed), where
        for gid in failed:
            message = r["messages"].get(gid, "")
            assert message.strip() and "Every test of this check held" not in message, \
                (where, gid, message)
        if name == "stub":
            assert any("is not written yet" in r["messages"][g] for g in failed), where
    lab3 = read["lab3", 1280]
    assert lab3["images"] >= 1, "Lab 3 draws before its first test: its plot is on the page"
    assert lab3["formulas"] >= 1, "Lab 3's token sum is drawn as a formula"
    assert {v for _, v in lab3["summary"] if v != WAITING} == {PASSED}, lab3["summary"]
