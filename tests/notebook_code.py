"""Run a notebook's solution code outside Jupyter, for fast tests and benchmarks.

The answers come from the authoring script (what ``source/`` is built from), with the
solution markers dropped, exactly as a student who wrote the solution would have them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from course.grading.authoring.markers import answer_text
from course.grading.authoring.scripts import build

from . import ROOT


def script(assignment: str) -> Path:
    return ROOT / "authoring" / assignment / f"{assignment}.py"


def answers(assignment: str) -> dict[str, str]:
    """grade_id -> the solution code of each answer cell, in notebook order."""
    path = script(assignment)
    nb = build(path.read_text(encoding="utf-8"), str(path))
    return {c.metadata["nbgrader"]["grade_id"]: answer_text(c.source) for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}


def namespace(assignment: str, edits: Sequence[tuple[str, str, str]] = (),
              preamble: dict[str, Any] | None = None) -> dict[str, Any]:
    """Execute every answer cell (after the given ``(cell, old, new)`` edits) in one namespace."""
    code = answers(assignment)
    for cell, old, new in edits:
        assert code[cell].count(old) == 1, (cell, old)
        code[cell] = code[cell].replace(old, new)
    # "__main__", as in a notebook: a dataclass in an answer cell looks its module up by name.
    ns: dict[str, Any] = {"__name__": "__main__", **(preamble or {})}
    for gid, source in code.items():
        exec(compile(source, f"<{assignment}:{gid}>", "exec"), ns)  # noqa: S102 - our notebook
    return ns
