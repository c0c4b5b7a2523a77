"""TeX in a feedback page's markdown, written as MathML before the page is written.

A feedback page runs no script (:data:`.feedback.CSP`), so MathJax cannot typeset it and
``$$\\frac{a}{b}$$`` would show as source. Browsers draw MathML themselves (MathML Core:
Chromium 109+, Firefox, Safari), so :class:`MathMLRenderer` converts each formula nbconvert's
markdown parser finds (``$…$``, ``$$…$$``, ``\\begin{…}…\\end{…}``) with ``latex2mathml``.

The TeX may be a student's (an answer cell), and latex2mathml copies some of it into its
output unescaped (``\\text{<b>}`` gives ``<mtext><b></mtext>``, ``\\href{javascript:…}``
gives an ``href`` attribute). So its output is parsed as XML and written again from the
parse: MathML elements from :data:`ELEMENTS` only, attributes from :data:`ATTRIBUTES` only,
values without a colon or angle bracket, text escaped. Anything else (a formula that does
not convert, is longer than :data:`MAX_TEX` or leaves the allow-lists) is shown as its TeX,
escaped, in a ``<code>`` span: readable, never markup.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

from nbconvert.filters.markdown_mistune import IPythonRenderer

MATHML = "http://www.w3.org/1998/Math/MathML"
#: The longest formula converted, in characters; a longer one is shown as TeX.
MAX_TEX = 2_000
#: MathML Core's presentation elements (https://www.w3.org/TR/mathml-core/#presentation-markup).
ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup",
    "munder", "mover", "munderover", "mfrac", "msqrt", "mroot", "mstyle", "mpadded",
    "mphantom", "menclose", "mtable", "mtr", "mtd", "mlabeledtr", "merror", "semantics",
    "annotation", "mmultiscripts", "mprescripts", "none"})
#: Presentation attributes; no ``href``, ``style``, event handler or ``src``.
ATTRIBUTES = frozenset({
    "display", "displaystyle", "scriptlevel", "mathvariant", "mathcolor", "mathbackground",
    "mathsize", "stretchy", "fence", "separator", "form", "accent", "accentunder", "lspace",
    "rspace", "width", "height", "depth", "linethickness", "columnalign", "rowalign",
    "columnspacing", "rowspacing", "columnlines", "rowlines", "frame", "framespacing",
    "minsize", "maxsize", "movablelimits", "symmetric", "largeop", "notation", "encoding",
    "columnspan", "rowspan", "voffset", "align", "side", "equalrows", "equalcolumns"})
_VALUE = re.compile(r"[^:<>\"'`\\]*")


def _clean(node: ET.Element) -> ET.Element:
    """``node`` rebuilt from the allow-lists; raises ValueError on anything outside them."""
    tag = node.tag.removeprefix("{" + MATHML + "}")
    if tag not in ELEMENTS:
        raise ValueError(f"element {tag!r}")
    attrs = {}
    for name, value in node.attrib.items():
        if name not in ATTRIBUTES or not _VALUE.fullmatch(value):
            raise ValueError(f"attribute {name!r}")
        attrs[name] = value
    out = ET.Element(tag, attrs)
    out.text = node.text
    out.tail = node.tail
    out.extend(_clean(child) for child in node)
    return out


def to_mathml(tex: str, display: str = "inline") -> str | None:
    """``tex`` as one ``<math>`` element, or None when it cannot be shown safely as MathML."""
    from latex2mathml.converter import convert

    if len(tex) > MAX_TEX:
        return None
    try:
        raw = convert(tex, display=display)
        if "<!" in raw or "<?" in raw:  # no declarations or processing instructions
            return None
        tree = _clean(ET.fromstring(raw))
    except Exception:  # noqa: BLE001 - latex2mathml raises many kinds on TeX it cannot read
        return None
    if tree.tag != "math":
        return None
    tree.set("xmlns", MATHML)
    return ET.tostring(tree, encoding="unicode", short_empty_elements=True)


def _as_tex(delimiter: str, tex: str, closing: str | None = None) -> str:
    closing = delimiter if closing is None else closing
    return f'<code class="tex">{html.escape(delimiter + tex + closing)}</code>'


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer with formulas written as MathML (see the module)."""

    def inline_math(self, body: str) -> str:
        return to_mathml(body, "inline") or _as_tex("$", body)

    def block_math(self, body: str) -> str:
        return to_mathml(body, "block") or _as_tex("$$", body)

    def latex_environment(self, name: str, body: str) -> str:
        tex = f"\\begin{{{name}}}{body}\\end{{{name}}}"
        return to_mathml(tex, "block") or _as_tex("", tex, "")
