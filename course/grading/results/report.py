"""Plain-text reports of a :class:`.model.ClassResults`: the per-student grade table and
which bugs the class hit."""

from __future__ import annotations

from .model import ClassResults


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def _some(names: list[str], most: int = 5) -> str:
    return ", ".join(names[:most]) + (f", and {len(names) - most} more" if len(names) > most
                                      else "")


def grade_table(results: ClassResults) -> str:
    """One block per notebook: a row per student, a column per autograded test cell; then
    every submission that failed to grade, awaits review or left a note."""
    out: list[str] = []
    for (assignment, notebook), group in results.by_notebook.items():
        stats = results.cell_stats(assignment, notebook)
        width = max([len("student")] + [len(r.student) for r in group])
        out.append(f"== {assignment}/{notebook}")
        for i, s in enumerate(stats, 1):
            out.append(f"   t{i:<2} {s.grade_id} ({s.max_score:g} pt)")
        columns = " ".join(f"t{i:<3}" for i in range(1, len(stats) + 1))
        out.append(f"   {'student':<{width}}  {columns}  auto total")
        for r in group:
            got = {c.grade_id: c for c in r.cells}
            marks = " ".join(f"{_fmt(got[s.grade_id].score) if s.grade_id in got else '?':<4}"
                             for s in stats)
            flag = "  needs review" if (r.student, assignment) in results.flagged else ""
            out.append(f"   {r.student:<{width}}  {marks}  {r.auto_score:g}/{r.auto_max:g}{flag}")
        out.append("")
    for (student, assignment), error in sorted(results.failed.items()):
        out.append(f"!! {student} / {assignment}: FAILED: {error}")
    for key, what in sorted(results.reviews.items()):
        student, _, assignment = key.partition("/")
        out.append(f"?? {student} / {assignment}: needs review: {'; '.join(what[:5])}"
                   + (f" (and {len(what) - 5} more)" if len(what) > 5 else "")
                   + "; autograded cells score 0 until cleared")
    for r in results.notes:
        out.append(f"   {r.student} / {r.assignment}: {r.error}")
    if results.unsandboxed:
        out.append("WARNING: graded WITHOUT the sandbox (--no-sandbox): student code could "
                   "read the course tree and write the gradebook")
    return "\n".join(out).rstrip() + "\n"


def class_report(results: ClassResults) -> str:
    """For each autograded cell some student lost, how many lost it: the bugs the class hit;
    with seeded bugs, the bug each student's lost cells look like, counted over the class
    (submissions awaiting review left out)."""
    if not results.lost_cells:
        out = ["No autograded cell was lost by anyone."]
    else:
        out = ["Bugs the class hit (cells lost, most common first):"]
        for (assignment, gid), names in results.lost_cells.items():
            out.append(f"  {len(names)}/{results.graded_count(assignment)}  {assignment}: "
                       f"{gid}  ({_some(names)})")
    if results.mutants and results.diagnosed:
        out.append("Diagnosed bugs (lost cells matched against each seeded bug's signature; "
                   "submissions awaiting review left out):")
        for (assignment, text), names in results.diagnosed.items():
            out.append(f"  {len(names)}  {assignment}: {text}  ({_some(names)})")
    return "\n".join(out) + "\n"
