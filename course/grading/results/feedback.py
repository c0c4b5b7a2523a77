"""Feedback that never carries a hidden test: redact test cells, then refuse any page that
still holds a line of a hidden-test or solution region.

:class:`RedactTests` runs inside ``nbgrader generate_feedback`` (see
``nbgrader_config.py``): each graded test cell keeps its points, pass or fail, and the
grader's own message (the engine wrote it; it passes through the boundary again here); its
source and every other output are dropped, so nothing a submission printed while a test ran
(an echoing hook, a trace function, a syntax error quoting a line) reaches the page. The
course's template (``templates/course_feedback``, through :class:`FeedbackExporter`) opens
the page with a summary of every graded cell, its points and verdict in words, each
linking to its panel; a failed check's message comes first in its own panel, wrapped; a
written answer says it waits for manual grading (:class:`CourseGetGrades`) and is left out
of the automatic total; a stub's check names the function not written yet.
:func:`scan_page` is the second layer: it reads the written HTML back and names every
secret line in it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
import nbgrader
from jinja2 import pass_context
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import MarkdownWithMath
from nbconvert.preprocessors import Preprocessor
from nbgrader.preprocessors import GetGrades
from traitlets import Bool

from ...validate_messages import unwritten_functions
from ..authoring.integrity import secret_lines
from ..authoring.markers import HIDDEN_BEGIN
from ..execution import boundary
from ..execution.sanitize import nbgrader_meta as _meta
from ..runner import read_notebook
from .maths import MathMLRenderer

_TAG = re.compile(r"<[^>]+>")


#: Shown for a check whose cell has no error output, though it lost points (a review flag,
#: a cell the grader could not score).
_LOST = "this check lost its points; see the notes from your instructor"


def _visible_names(cell) -> set[str]:
    """Identifiers of a test cell's visible part (what the student's release shows)."""
    source = cell.source if isinstance(cell.source, str) else ""
    return set(re.findall(r"[A-Za-z_]\w*", source.split(HIDDEN_BEGIN, 1)[0]))


_NOT_WRITTEN_END = "write it, run the self-check cell, then Validate"


def _not_written(names: list[str]) -> str:
    shown = ", ".join(f"`{boundary.line(n, 80)}`" for n in names)
    return (f"{shown} {'is' if len(names) == 1 else 'are'} not written yet (still "
            f"NotImplementedError): {_NOT_WRITTEN_END}")


def _message(cell, unwritten: list[str]) -> str:
    """What a failed check says, first line first: the grader's own words (the engine wrote
    them), through the boundary again; a stub's check names the functions to write."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            name = boundary.line(out.get("ename", "Error"), 60) or "Error"
            text = boundary.line(out.get("evalue", ""), boundary.MAX_MESSAGE)
            if name == "NotImplementedError":
                called = [n for n in unwritten if n in _visible_names(cell)] or unwritten
                return _not_written(called) if called else text
            return text if name == "AssertionError" and text else f"{name}: {text}"
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            return "the test wrote to stderr"
    return _LOST


def _kind(cell) -> str | None:
    m = _meta(cell)
    if m.get("grade") and not m.get("solution") and cell.cell_type == "code":
        return "check"
    if m.get("grade") or m.get("task"):
        return "written"
    return None


def _entry(cell, unwritten: list[str]) -> dict:
    """One graded cell's line of the summary (and its panel's heading)."""
    m = _meta(cell)
    points = float(m.get("points") or 0)
    score = m.get("score")
    entry = {"id": boundary.line(m.get("grade_id", ""), 80), "points": f"{points:g}",
             "score": "?" if score is None else f"{float(score):g}", "kind": _kind(cell)}
    if entry["kind"] == "check":
        passed = score is not None and float(score) >= points
        message = "" if passed else _message(cell, unwritten)
        label = ("passed" if passed else "failed: not written yet"
                 if message.endswith(_NOT_WRITTEN_END) else "failed")
        entry.update(verdict="passed" if passed else "failed",
                     mark="\u2713" if passed else "\u2717", label=label, message=message)
    elif m.get("needs_manual_grade", score is None or m.get("manual_score") is None):
        entry.update(verdict="waiting", mark="\u2026", label="waiting for manual grading",
                     score="\u2013", message="")
    else:
        entry.update(verdict="graded", mark="\u270e", label="graded by hand", message="")
    return entry


_FORMGRADER = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
#: Where nbconvert finds the course's feedback template, and nbgrader's that it extends.
TEMPLATE_DIRS = [str(Path(__file__).with_name("templates")), str(_FORMGRADER / "templates")]
#: Searched for templates by name: nbgrader's folder (``feedback/index.html.j2``) and the
#: Bootstrap stylesheet nbgrader's template inlines (what generate_feedback itself sets).
TEMPLATE_PATHS = [str(_FORMGRADER / "templates"),
                  str(_FORMGRADER / "static" / "node_modules" / "bootstrap" / "dist" / "css")]


class FeedbackExporter(HTMLExporter):
    """The exporter ``nbgrader generate_feedback`` uses (``nbgrader_config.py``): nbgrader's
    HTML exporter with the course's template and formulas written as MathML
    (:mod:`.maths`); the formgrader keeps its own."""

    @pass_context
    def markdown2html(self, context, source):
        """nbconvert's own filter (``HTMLExporter.markdown2html``), with the course's
        renderer."""
        cell = context.get("cell", {})
        renderer = MathMLRenderer(
            escape=False, attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=context.get("resources", {}).get("metadata", {}).get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
        return MarkdownWithMath(renderer=renderer).render(source)


class CourseGetGrades(GetGrades):
    """nbgrader's :class:`GetGrades`, which also notes whether a written answer still waits
    for its manual grade (a score of 0 there is no grade yet)."""

    def _get_score(self, cell, resources) -> None:
        super()._get_score(cell, resources)
        grade = self.gradebook.find_grade(cell.metadata["nbgrader"]["grade_id"],
                                          self.notebook_id, self.assignment_id,
                                          self.student_id)
        cell.metadata.nbgrader["needs_manual_grade"] = bool(grade.needs_manual_grade)
        cell.metadata.nbgrader["manual_score"] = grade.manual_score


class RedactTests(Preprocessor):
    """Replace each graded test cell by its result (points, pass or fail, the grader's
    message) and put a summary of every graded cell in ``resources["course_summary"]``
    for the course's feedback template (``templates/course_feedback``)."""

    enabled = Bool(True).tag(config=True)  # nbconvert preprocessors are off by default

    def preprocess(self, nb, resources):
        self._unwritten = unwritten_functions(nb)
        entries = []
        for index, cell in enumerate(nb.cells):
            nb.cells[index], resources = self.preprocess_cell(cell, resources, index)
            if _kind(cell) is not None:
                entries.append(nb.cells[index].metadata["course_feedback"])
        checks = [e for e in entries if e["kind"] == "check"]
        waiting = [e for e in entries if e["verdict"] == "waiting"]
        resources["course_summary"] = {
            "entries": entries,
            "passed": sum(e["verdict"] == "passed" for e in checks), "checks": len(checks),
            "auto_score": f"{sum(float(e['score']) for e in checks if e['score'] != '?'):g}",
            "auto_max": f"{sum(float(e['points']) for e in checks):g}",
            "waiting": len(waiting),
            "waiting_points": f"{sum(float(e['points']) for e in waiting):g}",
        }
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        kind = _kind(cell)
        unwritten = getattr(self, "_unwritten", [])
        if kind is not None:
            cell.metadata["course_feedback"] = _entry(cell, unwritten)
        if kind == "check":
            entry = cell.metadata["course_feedback"]
            cell.source = (f"# test {entry['id']}: {entry['score']}/{entry['points']} points, "
                           f"{entry['label']} (test code not shown)")
            cell.outputs = []
        elif cell.cell_type == "code":
            for out in cell.get("outputs", []):  # a stub's own cell: say what is missing
                if (out.get("output_type") == "error" and out.get("ename") ==
                        "NotImplementedError" and not str(out.get("evalue", "")).strip()
                        and unwritten):
                    out["evalue"] = _not_written(unwritten)
                    out["traceback"] = [f"NotImplementedError: {out['evalue']}"]
        return cell, resources


def page_lines(path: Path) -> set[str]:
    """The text lines of an HTML page, tags stripped, whitespace normalised."""
    text = html.unescape(_TAG.sub("", path.read_text(encoding="utf-8", errors="replace")))
    return {" ".join(line.split()) for line in text.split("\n")}


def own_lines(submitted: Path) -> set[str]:
    """Lines the student wrote themselves (their own answer is no leak)."""
    out: set[str] = set()
    for nb_path in submitted.glob("*.ipynb"):
        try:
            nb = read_notebook(nb_path)
        except Exception:  # noqa: BLE001 - a broken submission has no lines of its own
            continue
        for cell in nb.cells:
            m = _meta(cell)
            if m.get("grade") and not m.get("solution"):
                continue  # test cells are the instructor's, whatever the file says
            source = cell.get("source", "")
            if isinstance(source, str):
                out |= {" ".join(x.split()) for x in source.split("\n")}
    return out


def scan_page(page: Path, source: nbformat.NotebookNode, mine: set[str]) -> list[str]:
    """Secret lines (hidden tests, solutions) of ``source`` that appear on ``page``."""
    secret = secret_lines(source) - mine
    return sorted(secret & page_lines(page))


#: Sent with every feedback page, first thing in its head: no script of any origin runs,
#: nothing is fetched; inline styles and inline images still show.
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
       "base-uri 'none'; form-action 'none'; frame-src 'none'")
_CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'


def harden_page(page: Path) -> None:
    """Put :data:`CSP` at the top of the page's ``<head>``, before anything that could run."""
    text = page.read_text(encoding="utf-8", errors="replace")
    if _CSP_META in text:
        return
    head = re.search(r"<head[^>]*>", text, re.IGNORECASE)
    if head is None:
        text = f"<head>{_CSP_META}</head>\n" + text
    else:
        text = text[:head.end()] + _CSP_META + text[head.end():]
    page.write_text(text, encoding="utf-8")


def scan_feedback(course_dir: Path) -> list[str]:
    """One problem line per feedback page that shows a hidden-test or solution line, or that
    could not be checked; every page that passes gets :func:`harden_page`."""
    problems = []
    root = course_dir / "feedback"
    sources: dict[tuple[str, str], nbformat.NotebookNode | None] = {}
    for page in sorted(root.glob("*/*/*.html")):
        student, assignment = page.parent.parent.name, page.parent.name
        where = page.relative_to(course_dir)
        try:
            key = (assignment, page.stem)
            if key not in sources:
                src = course_dir / "source" / assignment / f"{page.stem}.ipynb"
                sources[key] = read_notebook(src) if src.is_file() else None
            if sources[key] is None:
                problems.append(f"{where} shows a notebook the course does not have, so it "
                                "could not be checked")
                continue
            mine = own_lines(course_dir / "submitted" / student / assignment)
            leaked = scan_page(page, sources[key], mine)
        except Exception as exc:  # noqa: BLE001 - a page that cannot be checked is not kept
            problems.append(f"{where} shows what could not be checked ({type(exc).__name__}: "
                            f"{(str(exc).splitlines() or [''])[0][:120]})")
            continue
        if leaked:
            problems.append(f"{where} shows {len(leaked)} line(s) of "
                            f"hidden tests or solutions, e.g. {leaked[0]!r}")
            continue
        harden_page(page)
    return problems

