"""Plain-text reports: the per-student grade table and which bugs the class hit."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from .grade import GradeRun, NotebookScore


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def grade_table(rows: Iterable[NotebookScore], runs: Iterable[GradeRun] = ()) -> str:
    """One block per notebook: a row per student, a column per autograded test cell."""
    rows = list(rows)
    failed = {(r.student, r.assignment): r.error for r in runs if not r.ok}
    out: list[str] = []
    by_nb: dict[tuple[str, str], list[NotebookScore]] = defaultdict(list)
    for r in rows:
        by_nb[(r.assignment, r.notebook)].append(r)
    for (assignment, notebook), group in sorted(by_nb.items()):
        cells = [c.grade_id for c in group[0].cells if c.auto]
        width = max([len("student")] + [len(r.student) for r in group])
        out.append(f"== {assignment}/{notebook}")
        for i, gid in enumerate(cells, 1):
            max_pts = next(c.max_score for c in group[0].cells if c.grade_id == gid)
            out.append(f"   t{i:<2} {gid} ({max_pts:g} pt)")
        columns = " ".join(f"t{i:<3}" for i in range(1, len(cells) + 1))
        header = f"   {'student':<{width}}  {columns}"
        out.append(header + "  auto total")
        for r in sorted(group, key=lambda r: r.student):
            got = {c.grade_id: c for c in r.cells}
            marks = " ".join(f"{_fmt(got[g].score) if g in got else '?':<4}" for g in cells)
            out.append(f"   {r.student:<{width}}  {marks}  {r.auto_score:g}/{r.auto_max:g}")
        out.append("")
    for (student, assignment), error in sorted(failed.items()):
        out.append(f"!! {student} / {assignment}: not graded: {error}")
    return "\n".join(out).rstrip() + "\n"


def class_report(rows: Iterable[NotebookScore]) -> str:
    """For each autograded cell some student lost, how many lost it: the bugs the class hit."""
    lost: dict[tuple[str, str], list[str]] = defaultdict(list)
    seen: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        seen[r.assignment].add(r.student)
        for c in r.cells:
            if c.auto and (c.score or 0) < c.max_score:
                lost[(r.assignment, c.grade_id)].append(r.student)
    if not lost:
        return "No autograded cell was lost by anyone.\n"
    out = ["Bugs the class hit (cells lost, most common first):"]
    for (assignment, gid), who in sorted(lost.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        names = sorted(who)
        shown = ", ".join(names[:5]) + (f", and {len(names) - 5} more" if len(names) > 5 else "")
        out.append(f"  {len(who)}/{len(seen[assignment])}  {assignment}: {gid}  ({shown})")
    return "\n".join(out) + "\n"
