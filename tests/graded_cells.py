"""Run a notebook's graded test cells (visible and hidden parts) in-process, for fast checks
that the solution passes every cell, the stub fails every cell, and each mutant loses exactly
the cells it declares. ``course verify`` proves the same through real nbgrader, slowly.
Judges run here, beside the record, so plain request logs are trusted (``course.hub``)."""

from __future__ import annotations

from typing import Any

from course.grading.authoring.markers import without
from course.grading.authoring.scripts import build

from . import notebook_code


def graded_cells(assignment: str) -> dict[str, str]:
    """grade_id -> the full code (visible and hidden) of every autograded test cell."""
    path = notebook_code.script(assignment)
    nb = build(path.read_text(encoding="utf-8"), str(path))
    return {c.metadata["nbgrader"]["grade_id"]: without(c.source, drop=())
            for c in nb.cells if c.cell_type == "code"
            and c.metadata.get("nbgrader", {}).get("grade")}


def failing_cells(assignment: str, ns: dict[str, Any]) -> set[str]:
    """The graded cells that raise when run, each in its own copy of ``ns``."""
    from course import hub

    failed = set()
    trusted, hub.TRUST_LOCAL = hub.TRUST_LOCAL, True  # our own notebook, judged right here
    try:
        for gid, code in graded_cells(assignment).items():
            try:
                exec(compile(code, f"<{assignment}:{gid}>", "exec"), dict(ns))  # noqa: S102
            except Exception:
                failed.add(gid)
    finally:
        hub.TRUST_LOCAL = trusted
    return failed
