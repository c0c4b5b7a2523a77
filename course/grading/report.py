"""Plain-text reports: the per-student grade table and which bugs the class hit."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from .diagnose import Diagnosis, diagnose
from .grade import GradeRun, NotebookScore
from .mutation import Mutant


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def grade_table(rows: Iterable[NotebookScore], runs: Iterable[GradeRun] = ()) -> str:
    """One block per notebook: a row per student, a column per autograded test cell."""
    rows = list(rows)
    runs = list(runs)
    failed = {(r.student, r.assignment): r.error for r in runs if not r.ok}
    review = {(r.student, r.assignment): r.review for r in runs if r.ok and r.review}
    rows = [r for r in rows if (r.student, r.assignment) not in failed]
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
            flag = "  needs review" if (r.student, r.assignment) in review else ""
            out.append(f"   {r.student:<{width}}  {marks}  {r.auto_score:g}/{r.auto_max:g}{flag}")
        out.append("")
    for (student, assignment), error in sorted(failed.items()):
        out.append(f"!! {student} / {assignment}: FAILED: {error}")
    for (student, assignment), what in sorted(review.items()):
        out.append(f"?? {student} / {assignment}: needs review: {'; '.join(what[:5])}"
                   + (f" (and {len(what) - 5} more)" if len(what) > 5 else "")
                   + "; autograded cells score 0 until cleared")
    for r in runs:
        if r.ok and r.error:
            out.append(f"   {r.student} / {r.assignment}: {r.error}")
    if any(not r.sandboxed for r in runs):
        out.append("WARNING: graded WITHOUT the sandbox (--no-sandbox): student code could "
                   "read the course tree and write the gradebook")
    return "\n".join(out).rstrip() + "\n"


def class_report(rows: Iterable[NotebookScore], reviews: dict[str, list[str]] | None = None,
                 mutants: dict[str, list[Mutant]] | None = None) -> str:
    """For each autograded cell some student lost, how many lost it: the bugs the class hit;
    with ``mutants`` (assignment -> its seeded bugs), the bug each student's lost cells look
    like, counted over the class; then every submission awaiting review for tampering."""
    rows = list(rows)
    listed = "".join(f"  needs review: {key}: {'; '.join(what[:5])}\n"
                     for key, what in sorted((reviews or {}).items()))
    # A flagged submission scores 0 until cleared: its lost cells say nothing about a bug.
    flagged = flagged_pairs(reviews or {})
    honest = [r for r in rows if (r.student, r.assignment) not in flagged]
    return (_lost(rows) + (_diagnosed(honest, mutants) if mutants else "")
            + (f"Submissions flagged for tampering:\n{listed}" if listed else ""))


def flagged_pairs(reviews: dict[str, list[str]]) -> set[tuple[str, str]]:
    """``(student, assignment)`` of each submission awaiting review (keys of
    :func:`.grade.needs_review`, ``"student/assignment"``)."""
    return {(student, assignment) for student, sep, assignment in
            (k.partition("/") for k in reviews) if sep}


def diagnosis_of(row: NotebookScore, mutants: Sequence[Mutant]) -> Diagnosis:
    """What one graded notebook's lost autograded cells look like (see :mod:`.diagnose`)."""
    auto = [c for c in row.cells if c.auto]
    lost = {c.grade_id for c in auto if (c.score or 0) < c.max_score}
    return diagnose(lost, mutants, all_cells=[c.grade_id for c in auto])


def diagnosed_students(rows: Iterable[NotebookScore],
                       mutants: dict[str, list[Mutant]]) -> dict[tuple[str, str], list[str]]:
    """``(assignment, diagnosis) -> students`` for every submission that lost a cell,
    most common diagnosis first, students sorted."""
    who: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in rows:
        d = diagnosis_of(r, mutants.get(r.assignment, []))
        if d.lost:
            who[(r.assignment, d.text)].append(r.student)
    return {k: sorted(v) for k, v in sorted(who.items(), key=lambda kv: (-len(kv[1]), kv[0]))}


def _diagnosed(rows: list[NotebookScore], mutants: dict[str, list[Mutant]]) -> str:
    """Students per diagnosed bug, most common first, naming up to five of them."""
    who = diagnosed_students(rows, mutants)
    if not who:
        return ""
    out = ["Diagnosed bugs (lost cells matched against each seeded bug's signature; "
           "submissions awaiting review left out):"]
    for (assignment, text), names in who.items():
        shown = ", ".join(names[:5]) + (
            f", and {len(names) - 5} more" if len(names) > 5 else "")
        out.append(f"  {len(names)}  {assignment}: {text}  ({shown})")
    return "\n".join(out) + "\n"


def lost_cells(rows: Iterable[NotebookScore]
               ) -> tuple[dict[tuple[str, str], list[str]], dict[str, set[str]]]:
    """``(assignment, cell) -> students who lost it`` (most lost first, students sorted)
    for autograded cells, and ``assignment -> students graded``."""
    lost: dict[tuple[str, str], list[str]] = defaultdict(list)
    seen: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        seen[r.assignment].add(r.student)
        for c in r.cells:
            if c.auto and (c.score or 0) < c.max_score:
                lost[(r.assignment, c.grade_id)].append(r.student)
    ranked = {k: sorted(v) for k, v in sorted(lost.items(), key=lambda kv: (-len(kv[1]), kv[0]))}
    return ranked, dict(seen)


def _lost(rows: Iterable[NotebookScore]) -> str:
    lost, seen = lost_cells(rows)
    if not lost:
        return "No autograded cell was lost by anyone.\n"
    out = ["Bugs the class hit (cells lost, most common first):"]
    for (assignment, gid), names in lost.items():
        shown = ", ".join(names[:5]) + (f", and {len(names) - 5} more" if len(names) > 5 else "")
        out.append(f"  {len(names)}/{len(seen[assignment])}  {assignment}: {gid}  ({shown})")
    return "\n".join(out) + "\n"
