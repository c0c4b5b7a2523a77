"""Feedback that never carries a hidden test: redact test cells, then refuse any page that
still holds a line of a hidden-test or solution region.

:class:`RedactTests` runs inside ``nbgrader generate_feedback`` (see
``nbgrader_config.py``): each graded test cell keeps its points, pass or fail, and the
first line of its error; its source and every other output are dropped, so nothing a
submission printed while a test ran (an echoing hook, a trace function, a syntax error
quoting a line) reaches the page. :func:`scan_page` is the second layer: it reads the
written HTML back and names every secret line in it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from ..authoring.integrity import secret_lines
from ..execution.sanitize import nbgrader_meta as _meta
from ..runner import read_notebook

_TAG = re.compile(r"<[^>]+>")


def _first_error(cell) -> str:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            msg = (str(out.get("evalue", "")).splitlines() or [""])[0]
            return f"{out.get('ename', 'Error')}: {msg}"[:200]
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            return "the test wrote to stderr"
    return ""


class RedactTests(Preprocessor):
    """Replace each graded test cell by its result: points, pass or fail, first error line."""

    enabled = Bool(True).tag(config=True)  # nbconvert preprocessors are off by default

    def preprocess_cell(self, cell, resources, index):
        m = _meta(cell)
        if cell.cell_type == "code" and m.get("grade") and not m.get("solution"):
            points = m.get("points", 0)
            score = m.get("score")
            passed = score is not None and score >= points
            got = "?" if score is None else f"{score:g}"
            error = _first_error(cell)
            cell.source = (f"# test {m.get('grade_id')}: {got}/{points:g} points, "
                           f"{'passed' if passed else 'failed'} (test code not shown)")
            cell.outputs = [] if passed or not error else [nbformat.v4.new_output(
                "stream", name="stdout", text=error + "\n")]
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

