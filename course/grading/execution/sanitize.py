"""What an autograded notebook may hold once a submission has run.

The autograded copy is what the formgrader shows an instructor and what feedback pages are
made from, so it keeps nothing a submission could script or smuggle through:

* test cells hold only the outputs the grader wrote (see :mod:`.engine`);
* other code cells keep plain text (streams, ``text/plain``, an error's name and message)
  and plots (PNG or JPEG, written again as PNG by :func:`.boundary.image`, at most
  :data:`.boundary.MAX_IMAGES` a notebook), and only for cells that ran before any hidden
  record part entered the kernel: what runs after that could carry what the kernel saw, in
  any encoding, so such a cell shows a note in place of its outputs;
* markdown written by the student (written answers, added cells) is shown as text: HTML is
  escaped and script links are disabled; attachments are dropped;
* raw cells become escaped markdown, and notebook-level widget state is dropped.
"""

from __future__ import annotations

import re

import nbformat
from nbformat import NotebookNode

from . import boundary

#: Outputs a non-test cell may keep, and the one MIME type kept from rich outputs.
_KEPT_MIME = "text/plain"
_SCRIPT_URL = re.compile(r"(?i)\b(java|vb)\s*script\s*:|\bdata\s*:(?=[^)\s]*\))")


def nbgrader_meta(cell) -> dict:
    """A cell's nbgrader metadata; {} when a submission put something else there."""
    meta = cell.get("metadata", {}).get("nbgrader") if isinstance(cell, dict) else None
    return meta if isinstance(meta, dict) else {}


def _is_test(cell: NotebookNode) -> bool:
    m = nbgrader_meta(cell)
    return cell.cell_type == "code" and bool(m.get("grade")) and not m.get("solution")


#: A fence line of a fenced code block: up to three spaces, then ``` or ~~~ (three or more).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: A code span: a run of backticks, its text, the same run again (CommonMark's rule).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def _literal(text: str) -> str:
    """``text`` as character references, every ASCII character but letters, digits and the
    space: nothing in it is markup, in HTML or in markdown, and it reads as written."""
    return "".join(c if c.isalnum() or c == " " or ord(c) > 127 else f"&#{ord(c)};"
                   for c in text)


def _plain_text(text: str) -> str:
    """Markdown prose with HTML escaped (``&``, ``<``) and script links disabled; each code
    span becomes a ``<code>`` element the course writes, its text as :func:`_literal`."""
    out, at = [], 0
    for m in _CODE_SPAN.finditer(text):
        if "\n\n" in m.group(2).replace(" ", ""):
            continue  # a code span never crosses a blank line
        out.append(_SCRIPT_URL.sub("blocked:", text[at:m.start()].replace(
            "&", "&amp;").replace("<", "&lt;")))
        code = m.group(2).replace("\n", " ")
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        out.append(f"<code>{_literal(code)}</code>")
        at = m.end()
    out.append(_SCRIPT_URL.sub("blocked:", text[at:].replace("&", "&amp;").replace(
        "<", "&lt;")))
    return "".join(out)


def plain_markdown(text: str) -> str:
    """Markdown that renders as the student's words and nothing else: no HTML element of
    theirs, no entity tricks, no ``javascript:`` or ``data:`` link.

    Text is escaped once: code spans and fenced code blocks, where markdown shows ``&lt;``
    as those four characters, become ``<code>`` and ``<pre>`` elements written here whose
    text is character references, so ``<this call's cost>`` reads as written wherever the
    notebook is rendered. A span this parser and a renderer read differently is still
    only escaped text."""
    lines = text.split("\n")
    out: list[str] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None:
            prose.append(lines[i])
            i += 1
            continue
        mark = fence.group(1)
        end = next((j for j in range(i + 1, len(lines))
                    if re.match(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}\s*$",
                                lines[j])), len(lines))
        if prose:
            out.append(_plain_text("\n".join(prose)))
            prose = []
        body = "&#10;".join(_literal(line) for line in lines[i + 1:end])
        out.append(f"<pre><code>{body}</code></pre>")
        i = end + 1
    if prose:
        out.append(_plain_text("\n".join(prose)))
    return "\n".join(out)


#: What a cell shows in place of outputs it made after a hidden record part was sent.
LATE_NOTE = ("(This cell's output is not kept: it ran after hidden tests had entered the "
             "kernel, and what it printed or drew could carry them.)")


def _image_output(data: dict, images: list[int]) -> NotebookNode | None:
    """The first image in ``data`` as a display output the grader wrote, a note saying why
    it was not kept, or None when ``data`` holds no image."""
    mime = next((m for m in boundary.IMAGE_TYPES if m in data), None)
    if mime is None:
        return None
    if images[0] >= boundary.MAX_IMAGES:
        note = f"(an image not kept: a notebook keeps at most {boundary.MAX_IMAGES})"
        return nbformat.v4.new_output("display_data", data={_KEPT_MIME: note})
    try:
        png = boundary.image(data[mime], mime)
    except boundary.Refused as refused:
        return nbformat.v4.new_output("display_data", data={_KEPT_MIME: f"({refused})"})
    images[0] += 1
    return nbformat.v4.new_output("display_data", data={"image/png": png})


def _kept_outputs(outputs: list[NotebookNode], images: list[int]) -> list[NotebookNode]:
    """Plain text outputs, each passed through :func:`.boundary.text` (escaped, capped),
    and images rewritten by :func:`.boundary.image`; ``images`` counts those kept so far."""
    kept = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            name = "stderr" if out.get("name") == "stderr" else "stdout"
            kept.append(nbformat.v4.new_output("stream", name=name,
                                               text=boundary.text(out.get("text", ""))))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data") if isinstance(out.get("data"), dict) else {}
            shown = _image_output(data, images)
            if shown is not None:
                kept.append(shown)
                continue
            text = data.get(_KEPT_MIME)
            if isinstance(text, str | list):
                text = "".join(map(str, text)) if isinstance(text, list) else text
                kept.append(nbformat.v4.new_output("display_data",
                                                   data={_KEPT_MIME: boundary.text(text)}))
        elif kind == "error":
            ename = boundary.line(out.get("ename", "Error"), 80)
            evalue = boundary.line(out.get("evalue", ""), 2000)
            kept.append(nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                               traceback=[f"{ename}: {evalue}"]))
    return kept


def sanitize(nb: NotebookNode, first_record: int | None) -> NotebookNode:
    """``nb`` made safe to show an instructor and a student (see the module docstring).

    ``first_record`` is the index of the first cell whose hidden record part was sent to
    the kernel (None if none was)."""
    cells = []
    images = [0]
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            count = cell.get("execution_count")  # the kernel's number: an int, or none
            cell.execution_count = count if type(count) is int and 0 <= count < 10**6 else None
            if not _is_test(cell):
                late = first_record is not None and index >= first_record
                outputs = cell.get("outputs", [])
                if not late:
                    cell.outputs = _kept_outputs(outputs, images)
                else:
                    cell.outputs = [nbformat.v4.new_output(
                        "stream", name="stdout", text=LATE_NOTE)] if outputs else []
        elif cell.cell_type == "markdown":
            meta = nbgrader_meta(cell)
            locked = meta.get("locked") and not meta.get("solution")
            if not locked:
                cell.source = plain_markdown(cell.source)
            cell.pop("attachments", None)
        else:  # raw
            cell = nbformat.v4.new_markdown_cell(plain_markdown(cell.source), id=cell.get("id"))
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    return nb
