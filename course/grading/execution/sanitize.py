"""What an autograded notebook may hold once a submission has run.

The autograded copy is what the formgrader shows an instructor and what feedback pages are
made from, so it keeps nothing a submission could script or smuggle through:

* test cells hold only the outputs the grader wrote (see :mod:`.engine`);
* other code cells keep plain text only (streams, ``text/plain``, an error's name and
  message), and only for cells that ran before any hidden record part entered the kernel:
  what runs after that could carry what the kernel saw, in any encoding;
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


def plain_markdown(text: str) -> str:
    """Markdown that renders as the student's words and nothing else: no HTML element, no
    entity tricks, no ``javascript:`` or ``data:`` link."""
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    return _SCRIPT_URL.sub("blocked:", text)


def _plain_outputs(outputs: list[NotebookNode]) -> list[NotebookNode]:
    """Plain text outputs, each passed through :func:`.boundary.text` (escaped, capped)."""
    kept = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            name = "stderr" if out.get("name") == "stderr" else "stdout"
            kept.append(nbformat.v4.new_output("stream", name=name,
                                               text=boundary.text(out.get("text", ""))))
        elif kind in ("execute_result", "display_data"):
            text = (out.get("data") or {}).get(_KEPT_MIME)
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
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            count = cell.get("execution_count")  # the kernel's number: an int, or none
            cell.execution_count = count if type(count) is int and 0 <= count < 10**6 else None
            if not _is_test(cell):
                late = first_record is not None and index >= first_record
                cell.outputs = [] if late else _plain_outputs(cell.get("outputs", []))
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
