"""Formulas on feedback pages are MathML the grader writes (:mod:`course.grading.results.maths`):
every formula the course's notebooks hold converts, and TeX a student wrote never becomes
markup beyond MathML's presentation elements."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import nbformat
import pytest

from course.grading.results import maths
from course.grading.results.feedback import FeedbackExporter
from course.grading.runner import assignments, read_notebook

from . import ROOT


def _page(*markdown: str) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(m) for m in markdown])
    body, _ = FeedbackExporter().from_notebook_node(nb)
    return body.split("<main>", 1)[-1]


def _markdown_cells() -> dict[str, list[str]]:
    out = {}
    for name in assignments(ROOT):
        nb = read_notebook(ROOT / "source" / name / f"{name}.ipynb")
        out[name] = [c.source for c in nb.cells if c.cell_type == "markdown"]
    return out


def test_every_formula_in_the_course_is_drawn_as_mathml():
    cells = _markdown_cells()
    with_maths = {name: [s for s in sources if "$$" in s or re.search(r"\\[a-z]+\{", s)]
                  for name, sources in cells.items()}
    with_maths = {k: v for k, v in with_maths.items() if v}
    # Lab 3's token sum, Lab 5's cosine, Lecture 4's cumulative input: the page's three
    # display formulas are real, so an empty scan would not pass for a clean one.
    assert {"lab03_budget", "lab05_semantic_cache", "lecture04_context_cache"} <= set(with_maths)
    for name, sources in with_maths.items():
        page = _page(*sources)
        assert "<math" in page, name
        assert 'class="tex"' not in page, (name, re.findall(r'<code class="tex">.*?</code>', page))
        text = re.sub(r"<[^>]+>", "", page)
        assert "$$" not in text and "\\frac" not in text and "\\text{" not in text, name


def test_dollars_in_prose_stay_dollars():
    page = _page("a stuck model, \\$0.50 a call, a \\$2.00 limit")
    assert "$0.50 a call, a $2.00 limit" in page and "<math" not in page


@pytest.mark.parametrize("tex", [
    "\\text{<b>bold</b>}",
    "\\text{<img src=x onerror=alert(1)>}",
    "\\href{javascript:alert(1)}{x}",
    "\\color{javascript:alert(1)}{x}",
    "\\text{<!DOCTYPE x [<!ENTITY a 'b'>]>}",
    "x" * (maths.MAX_TEX + 1),
    "\\frac{",
])
def test_tex_a_student_wrote_is_shown_as_text_when_it_is_not_plain_mathml(tex):
    assert maths.to_mathml(tex) is None
    page = _page(f"answer: ${tex}$ and $$ {tex} $$")
    assert page.count('<code class="tex">') == 2
    assert not re.search(r"<(b|img|a)\b|<[^>]*\b(href|onerror)=", page), page


def test_mathml_keeps_only_presentation_elements_and_attributes():
    out = maths.to_mathml("\\sqrt[3]{x} + \\frac{a}{b} \\color{red}{y} "
                          "\\begin{matrix}a&b\\end{matrix}")
    tree = ET.fromstring(out)
    tags = {e.tag.split("}")[-1] for e in tree.iter()}
    assert {"math", "mroot", "mfrac", "mstyle", "mtable"} <= tags <= maths.ELEMENTS
    assert {a for e in tree.iter() for a in e.attrib} <= maths.ATTRIBUTES | {"xmlns"}


def test_the_allow_list_refuses_what_latex2mathml_would_pass_through():
    """The allow-list is what stands between latex2mathml and the page: without it, the
    raw converter output holds the markup."""
    from latex2mathml.converter import convert

    assert "<b>" in convert("\\text{<b>bold</b>}")
    assert 'href="javascript:' in convert("\\href{javascript:alert(1)}{x}")
