"""No submission runs script in an instructor's browser: feedback page and Formgrader.

One scratch course with Lab 1. One student, ``xss``, submits the correct solution with
script everywhere a notebook can carry it: rich outputs of the answer cell (HTML, SVG,
Javascript, Markdown, markup printed to stdout), the written answer ``why_one_message``,
an added markdown cell, a raw HTML cell and notebook-level widget state. A second folder
whose name is itself markup (:data:`tests.test_sandbox_attacks.UNSAFE_ID`) is submitted too.
The class is graded and feedback written, then every page is opened in headless Chromium
(Debian's ``/usr/bin/chromium``) with nothing but loopback and the page's own file reachable.

Each payload is tagged: if it ran it would append its tag to ``top.__xss``, set the title
to ``XSS``, log ``XSS-RAN:<tag>`` and call ``alert`` (Playwright sees the dialog). Every
``javascript:`` link a payload left is clicked. Pages checked:

* control: a page holding the raw markup fires every tagged payload, so the probe works;
* the unsanitised notebook through nbconvert's classic template fires (what the grader
  would show without :mod:`course.grading.execution.sanitize`), and does not once the feedback CSP
  is put in its head (the CSP alone holds);
* the real feedback page, and the same page with its CSP removed (the sanitiser alone holds);
* Formgrader, served on loopback as the instructor: the submission view and the
  assignment, gradebook and student pages (nbgrader lists every folder of ``submitted/``,
  so the refused id shows on some of them: as text, which is checked like the rest).

Screenshots land in the test's folder (and in ``$COURSE_SCREENSHOTS`` when set).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import time
from contextlib import ExitStack
from dataclasses import dataclass, field

import nbformat
import pytest

from course.grading import runner
from course.grading.authoring import build
from course.grading.execution import grade
from course.grading.proofs.mutation import submission
from course.grading.results.feedback import CSP, harden_page

from . import ROOT
from .test_browser import (
    CHROMIUM,
    FLAGS,
    OFF_LOOPBACK,
    TOKEN,
    LabServer,
    Shots,
    _require_browser,
)
from .test_sandbox_attacks import UNSAFE_ID, XSS, XSS_MARKDOWN, XSS_OUTPUTS

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LAB = "lab01_tool_loop"
NB = f"{LAB}.ipynb"
STUDENT = "xss"


def _js(tag: str) -> str:
    """What a payload does if it runs; no quotes, so it fits any attribute or markdown."""
    return (f"top.__xss=(top.__xss||[]).concat(/{tag}/.source);top.document.title=/XSS/.source;"
            f"console.log(/XSS-RAN:{tag}/.source);alert(/XSS:{tag}/.source)")


def _script(tag: str) -> str:
    return f"<script>{_js(tag)}</script>"


def _img(tag: str) -> str:
    return f'<img src=x onerror="{_js(tag)}">'


def _iframe(tag: str) -> str:
    return f'<iframe srcdoc="<script>{_js(tag)}</script>"></iframe>'


def _svg(tag: str) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg"><script>{_js(tag)}</script></svg>'


def _markdown(where: str) -> str:
    return (f"{_script(where + '-script')} {_img(where + '-img')} "
            f"[click](javascript:{_js(where + '-link')}) {_iframe(where + '-iframe')}")


def _markdown_as_html(where: str) -> str:
    return (f"{_script(where + '-script')} {_img(where + '-img')} "
            f'<a href="javascript:{_js(where + "-link")}">click</a> {_iframe(where + "-iframe")}')


#: Markup that tries to leave a code span or a fenced block, which the sanitiser writes as
#: elements of its own (not in TAGS: raw, a code span keeps them as text anyway).
CODE_BREAKOUTS = (f"`</code>{_script('code-span-script')}` [c](`javascript:{_js('code-link')}`)"
                  f"\n\n```\n</code></pre>{_img('fence-img')}\n```\n")
#: TeX whose conversion would carry markup (results/maths.py shows it as text), and one
#: plain formula, which the page draws as MathML.
TEX = (f"$\\text{{{_img('tex-img')}}}$ $\\href{{javascript:{_js('tex-href')}}}{{x}}$ "
       "and $$a^2 + b^2$$")
OUT_HTML = _img("out-html-img") + _script("out-html-script") + _iframe("out-html-iframe")
OUT_JS = _js("out-js")
OUT_SVG = _svg("out-svg")
OUT_PRINT = _script("out-print-script") + _img("out-print-img")
OUT_MD = _img("out-md-img")
RAW = _script("raw-script") + _img("raw-img")
WIDGET = f"</script>{_script('widget-state')}"
#: Appended to the correct solution in the answer cell (after the suite's own XSS_OUTPUTS).
TAGGED_OUTPUTS = f"""
from IPython.display import HTML as _H, SVG as _S, Javascript as _J, Markdown as _M
display(_H({OUT_HTML!r}))
display(_J({OUT_JS!r}))
display(_S({OUT_SVG!r}))
display(_M({OUT_MD!r}))
print({OUT_PRINT!r})
"""
TAGS = sorted(set(re.findall(r"top\.__xss\|\|\[\]\)\.concat\(/([\w-]+)/", "".join(
    [OUT_HTML, OUT_JS, OUT_SVG, OUT_PRINT, OUT_MD, RAW, WIDGET,
     _markdown("answer"), _markdown("added")]))))

#: Clicks every link a payload planted (one whose href holds a payload); returns their HTML.
CLICK_PAYLOAD_LINKS = """() => {
  const links = [...document.querySelectorAll('a[href]')]
    .filter(a => /^\\s*(java|vb)\\s*script\\s*:/i.test(a.getAttribute('href'))
                 && /XSS/.test(a.getAttribute('href')));
  links.forEach(a => a.click());
  return links.map(a => a.outerHTML);
}"""
#: Elements that would run a payload if the page let them: a payload survived as markup.
LIVE_MARKUP = """() => [...document.querySelectorAll(
    'script, iframe, svg, object, embed, [onerror], [onload], [href^="javascript" i]')]
  .map(e => e.outerHTML).filter(h => /XSS|alert\\(1\\)/.test(h))"""


#: Text a reader sees that is still TeX source: a "$$" or a "\\frac" outside scripts, styles
#: and the course's own ``<code class="tex">`` (TeX it chose to show as text).
RAW_TEX = """() => {
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.parentElement.closest('script, style, code.tex')) continue;
    if (/\\$\\$|\\\\(frac|sum|text)\\b/.test(n.textContent)) out.push(n.textContent.slice(0, 80));
  }
  return out;
}"""


@dataclass
class Probe:
    where: str
    url: str
    title: str
    tags: list[str]
    dialogs: list[str]
    console: list[str]
    links: list[str]
    live: list[str]
    dom: str = field(repr=False)

    @property
    def ran(self) -> list[str]:
        """Evidence that a payload ran ([] if none did)."""
        out = [f"top.__xss = {self.tags}"] if self.tags else []
        out += [f"alert({m!r})" for m in self.dialogs]
        out += [f"console: {m}" for m in self.console if "XSS" in m]
        if self.title == "XSS":
            out.append("document.title set to 'XSS'")
        return out

    def fired(self) -> set[str]:
        msgs = [m.split(":", 1)[1] for m in self.dialogs if m.startswith("XSS:")]
        logs = [m.split(":", 1)[1] for m in self.console if m.startswith("XSS-RAN:")]
        return set(self.tags) & set(msgs) & set(logs)

    def report(self) -> str:
        """Where each fired payload sits in the page, for a failure message."""
        lines = [f"{self.where} ({self.url}): {'; '.join(self.ran)}"]
        for tag in self.tags or [""]:
            needle = f"/{tag}/" if tag else "XSS"
            at = self.dom.find(needle)
            if at >= 0:
                lines.append(f"  around {needle!r}: ...{self.dom[max(0, at - 300):at + 200]}...")
        lines += [f"  live markup: {h[:300]}" for h in self.live]
        return "\n".join(lines)


def _answer(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "agent")


def _hostile(release, source) -> nbformat.NotebookNode:
    """The correct solution plus script in every place a notebook can hold it."""
    nb = submission(release, source)
    answer = _answer(nb)
    answer.source = answer.source + "\n" + XSS_OUTPUTS + TAGGED_OUTPUTS
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "why_one_message":
            cell.source = XSS_MARKDOWN + "\n\n" + _markdown("answer") + "\n\n" + TEX
    nb.cells.append(nbformat.v4.new_markdown_cell(XSS_MARKDOWN + "\n\n" + _markdown("added")
                                                  + "\n\n" + CODE_BREAKOUTS))
    nb.cells.append(nbformat.v4.new_raw_cell(f"<script>{XSS}</script>{RAW}",
                                              metadata={"format": "text/html"}))
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": {}, "version_major": 2, "version_minor": 0, "note": WIDGET}}
    return nb


def _with_kernel_outputs(nb) -> nbformat.NotebookNode:
    """``nb`` as a kernel would leave it, before any sanitising: the answer cell's rich
    outputs (built here: the same MIME bundles IPython's display sends)."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    out = nbformat.v4.new_output
    _answer(nb).outputs = [
        out("display_data", data={"text/html": OUT_HTML, "text/plain": "<HTML>"}),
        out("display_data", data={"application/javascript": OUT_JS, "text/plain": "<JS>"}),
        out("display_data", data={"image/svg+xml": OUT_SVG, "text/plain": "<SVG>"}),
        out("display_data", data={"text/markdown": OUT_MD, "text/plain": "<Markdown>"}),
        out("stream", name="stdout", text=OUT_PRINT + "\n"),
    ]
    return nb


#: Elements a reader would have to scroll sideways: their content is wider than their box
#: (and the box scrolls), or they reach past the viewport's right edge.
WIDE_ELEMENTS = """() => [...document.querySelectorAll('body *')].filter(e => {
    const style = getComputedStyle(e);
    if (style.display === 'none' || style.visibility === 'hidden') return false;
    const scrolls = e.scrollWidth > e.clientWidth + 1 && style.overflowX !== 'visible'
                    && style.overflowX !== 'hidden';
    return scrolls || e.getBoundingClientRect().right > window.innerWidth + 1;
  }).slice(0, 10)
  .map(e => `${e.tagName}.${e.className}: ${e.scrollWidth}px in ${e.clientWidth}px`)"""


def read_feedback_page(context, url: str, allowed: set[str], shots) -> dict:
    """What a student reads first on a feedback page at 1280 px: the summary's rows (cell
    link, its class, the verdict in words), links without a target, elements that need
    sideways scrolling, and the page's text."""
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    allowed.add(url)
    page.goto(url, wait_until="load")
    shots(page, "feedback-summary-1280")
    read = {
        "summary": page.evaluate("""() => [...document.querySelectorAll('#summary tbody tr')]
            .map(r => [r.querySelector('a').getAttribute('href').slice(1), r.className,
                       r.querySelector('.course-verdict').innerText.trim()])"""),
        "missing_targets": page.evaluate("""() => [...document.querySelectorAll('#summary a')]
            .map(a => a.getAttribute('href').slice(1))
            .filter(id => !document.getElementById(id))"""),
        "wide": page.evaluate(WIDE_ELEMENTS),
        "page_width": page.evaluate("() => document.documentElement.scrollWidth"),
        "text": page.inner_text("body"),
        "formulas": page.evaluate("""() => [...document.querySelectorAll('math')]
            .map(m => [m.textContent, m.getBoundingClientRect().width])"""),
        "raw_tex": page.evaluate(RAW_TEX),
    }
    page.close()
    return read


@pytest.fixture(scope="module")
def xss_course(tmp_path_factory):
    _require_browser()
    started = time.monotonic()
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path_factory.mktemp("xss"))
    with open(course / runner.CONFIG_FILE, "a") as f:
        f.write("\nc.Execute.timeout = 20\n")
    build.generate(course, LAB)
    release = runner.read_notebook(course / "release" / LAB / NB)
    source = runner.read_notebook(course / "source" / LAB / NB)
    hostile = _hostile(release, source)
    for student, nb in ((STUDENT, hostile), (UNSAFE_ID, submission(release, source))):
        target = course / "submitted" / student / LAB / NB
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
    result = grade.grade_class(course, [LAB], jobs=1, progress=False)
    errors = grade.write_feedback(course, [LAB])
    yield {"course": course, "result": result, "feedback_errors": errors,
           "hostile": hostile, "seconds": time.monotonic() - started}
    shutil.rmtree(course, ignore_errors=True)


def test_no_submission_runs_script_in_the_instructors_browser(xss_course, tmp_path):
    from nbconvert import HTMLExporter
    from nbgrader.api import Gradebook
    from playwright.sync_api import sync_playwright

    course = xss_course["course"]
    runs = {r.student: r for r in xss_course["result"].runs}
    assert runs[STUDENT].ok, runs[STUDENT].error
    rows = {r.student: r for r in xss_course["result"].rows}
    assert rows[STUDENT].auto_score == rows[STUDENT].auto_max == 14
    assert not runs[UNSAFE_ID].ok and "not a safe id" in runs[UNSAFE_ID].error
    assert not xss_course["feedback_errors"], xss_course["feedback_errors"]
    feedback = course / "feedback" / STUDENT / LAB / f"{LAB}.html"
    assert feedback.is_file()

    started = time.monotonic()
    laps: dict[str, float] = {"grading fixture": round(xss_course["seconds"], 1)}

    def lap(step: str) -> None:
        laps[step] = round(time.monotonic() - started, 1)

    # Pages built here: the raw markup, the unsanitised notebook with and without the CSP,
    # and the real feedback page without its CSP.
    pages = tmp_path / "pages"
    pages.mkdir()
    control = pages / "control.html"
    control.write_text(
        "<!DOCTYPE html><html><head><title>control</title></head><body>\n"
        + "\n".join([OUT_HTML, f"<script>{OUT_JS}</script>", OUT_SVG, OUT_PRINT, OUT_MD,
                     _markdown_as_html("answer"), _markdown_as_html("added"), RAW,
                     f'<script type="application/json">{WIDGET}</script>'])
        + "\n</body></html>", encoding="utf-8")
    raw_page = pages / "unsanitised.html"
    body, _ = HTMLExporter(template_name="classic").from_notebook_node(
        _with_kernel_outputs(xss_course["hostile"]))
    raw_page.write_text(body, encoding="utf-8")
    raw_csp = pages / "unsanitised-csp.html"
    shutil.copy2(raw_page, raw_csp)
    harden_page(raw_csp)
    assert CSP in raw_csp.read_text()
    feedback_text = feedback.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in feedback_text.split("</head>", 1)[0]
    bare = pages / "feedback-without-csp.html"
    bare.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "",
                           feedback_text), encoding="utf-8")
    assert "Content-Security-Policy" not in bare.read_text()

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        submission_id = gb.find_submission_notebook(LAB, LAB, STUDENT).id
        students = [s.id for s in gb.students]
    assert students == [STUDENT], students

    shots = Shots(tmp_path / "screenshots")
    allowed_files: set[str] = set()
    probes: list[Probe] = []

    with ExitStack() as stack:
        server = LabServer(course, tmp_path, "instructor")
        stack.callback(server.stop)
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        stack.callback(browser.close)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        # Loopback only, and of files just the page being probed (its `src=x` is refused).
        context.route(lambda url: OFF_LOOPBACK(url) and url not in allowed_files,
                      lambda route: route.abort())

        def probe(where: str, url: str, ready=None, shot: str | None = None) -> Probe:
            page = context.new_page()
            page.set_default_timeout(60_000)
            dialogs: list[str] = []
            console: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("console", lambda m: console.append(m.text))
            if url.startswith("file://"):
                allowed_files.add(url)
            page.goto(url, wait_until="load")
            if ready is not None:
                ready(page)
            page.wait_for_timeout(700)  # iframes, image errors, late scripts
            links = page.evaluate(CLICK_PAYLOAD_LINKS)
            page.wait_for_timeout(300 if links else 0)
            found = Probe(where=where, url=url, title=page.title(),
                          tags=page.evaluate("() => window.__xss ?? []"), dialogs=dialogs,
                          console=console, links=links, live=page.evaluate(LIVE_MARKUP),
                          dom=page.content())
            if shot:
                shots(page, shot)
            page.close()
            probes.append(found)
            slug = re.sub(r"[^a-z0-9]+", "-", where.lower()).strip("-")
            (tmp_path / "dom").mkdir(exist_ok=True)
            (tmp_path / "dom" / f"{slug}.html").write_text(found.dom, encoding="utf-8")
            return found

        def scroll_to_answer(page) -> None:
            """Bring the written answer (the payloads, as text) into the screenshot."""
            page.locator("text=Explain").last.scroll_into_view_if_needed()

        # 1. The probe works: raw markup fires every tagged payload in this browser.
        ctl = probe("control: raw payload markup", control.as_uri(), shot="control")
        assert ctl.fired() == set(TAGS), (
            f"the probe missed payloads: {sorted(set(TAGS) - ctl.fired())}; {ctl.ran}")
        assert ctl.title == "XSS"
        lap("control")
        unsafe = probe("control: unsanitised notebook, nbconvert classic", raw_page.as_uri(),
                       shot="unsanitised")
        assert unsafe.ran, "the unsanitised render ran no payload: the probe proves nothing"
        unsafe_fired = sorted(unsafe.fired())
        csp_only = probe("unsanitised notebook + feedback CSP", raw_csp.as_uri())
        assert csp_only.live, "the CSP control lost its markup"
        lap("unsanitised renders")

        # 2. The feedback page as written, and without its CSP (the sanitiser alone).
        probe("feedback page", feedback.as_uri(), ready=scroll_to_answer, shot="feedback")
        bare_probe = probe("feedback page without its CSP", bare.as_uri())
        assert "&lt;script&gt;" in feedback_text  # the student's words are there, as text
        assert f"<script>{XSS}" in html.unescape(re.sub(r"<[^>]+>", "", bare_probe.dom))
        read = read_feedback_page(context, feedback.as_uri(), allowed_files, shots)
        verdicts = {gid: verdict for gid, _, verdict in read["summary"]}
        assert verdicts.pop("why_one_message") == "\u2026 waiting for manual grading"
        assert verdicts and set(verdicts.values()) == {"\u2713 passed"}, read["summary"]
        assert all(cls.startswith("course-") for _, cls, _ in read["summary"])
        assert not read["missing_targets"], read["missing_targets"]
        assert read["page_width"] <= 1280 and not read["wide"], read["wide"]
        assert "&lt;" not in read["text"] and "&amp;" not in read["text"]
        assert "Fontconfig" not in read["text"]
        assert "a2+b2" in [f for f, width in read["formulas"] if width > 0], read["formulas"]
        assert not read["raw_tex"], read["raw_tex"]
        lap("feedback")

        # 3. Formgrader as the instructor, on loopback with a token.
        base = server.ready()
        lap("formgrader ready")

        def shows(text: str):
            """Wait until the page's table (filled in by its script) shows ``text``."""
            return lambda page: page.locator("tbody tr td", has_text=text).first.wait_for(
                timeout=30_000)

        def notebook_shown(page) -> None:
            page.locator("text=Explain").first.wait_for(timeout=60_000)
            page.wait_for_load_state("networkidle")
            scroll_to_answer(page)

        id_as_text: list[str] = []
        sub = probe("formgrader submission view",
                    f"{base}/formgrader/submissions/{submission_id}/?token={TOKEN}",
                    ready=notebook_shown, shot="formgrader-submission")
        shown = sub.dom
        assert "&lt;script&gt;top.__xss" in shown, "the escaped answer is not on the page"
        for where, path, ready, shot in [
            ("formgrader assignments", "/formgrader", shows(LAB), "formgrader-assignments"),
            ("formgrader submissions of lab 1", f"/formgrader/manage_submissions/{LAB}",
             shows(STUDENT), "formgrader-submissions"),
            ("formgrader gradebook", f"/formgrader/gradebook/{LAB}/{LAB}", shows("Submission #1"),
             None),
            ("formgrader students", "/formgrader/manage_students", shows(STUDENT),
             "formgrader-students"),
            ("formgrader student's assignments", f"/formgrader/manage_students/{STUDENT}",
             shows(LAB), None),
            ("formgrader student's notebooks", f"/formgrader/manage_students/{STUDENT}/{LAB}",
             shows(LAB), None),
        ]:
            found = probe(where, f"{base}{path}?token={TOKEN}", ready=ready, shot=shot)
            # nbgrader lists every folder of submitted/, the refused one too: as text only
            # (its alert would be a dialog; the element would be live markup).
            if html.escape(UNSAFE_ID) in found.dom:
                id_as_text.append(where)
        lap("formgrader pages")
        context.close()
    lap("closed")

    checked = [p for p in probes if not p.where.startswith("control")]
    ran = [p.report() for p in checked if p.ran]
    live = [p.report() for p in checked
            if (p.live or p.links) and p.where != "unsanitised notebook + feedback CSP"]
    summary = {"tags": len(TAGS), "control fired": sorted(ctl.fired()),
               "unsanitised render fired": unsafe_fired,
               "pages checked": [p.where for p in checked],
               "refused id shown as text on": id_as_text, "laps": laps}
    (tmp_path / "summary.json").write_text(json.dumps(summary, indent=1))
    print("browser XSS check:", json.dumps(summary, indent=1))
    assert not ran, "a payload ran in the instructor's browser:\n" + "\n".join(ran)
    assert not live, "payload markup survived sanitising:\n" + "\n".join(live)
    for path in shots.taken:
        assert path.stat().st_size > 3_000, f"{path.name} looks empty"
