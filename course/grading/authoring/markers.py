"""The one parser of nbgrader's ``### BEGIN/END`` regions in a cell's source.

nbgrader's own ``ClearSolutions`` and ``ClearHiddenTests`` refuse a region that is nested
in another or never closed; so does this parser. Every part of the course that needs to
know which lines are answers or hidden tests (building solutions, filling a mutant's
submission, the leak check, feedback scanning) calls :func:`split`, so they can never
disagree about where a region starts or stops.
"""

from __future__ import annotations

from dataclasses import dataclass

SOLUTION_BEGIN = "### BEGIN SOLUTION"
SOLUTION_END = "### END SOLUTION"
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"

#: Inside a hidden-test region, the line that ends the part that runs in the kernel (it
#: records what happened) and starts the judge, which runs in the grader's own process.
JUDGE = "### JUDGE"

#: Region name -> (begin marker, end marker).
REGIONS: dict[str, tuple[str, str]] = {
    "solution": (SOLUTION_BEGIN, SOLUTION_END),
    "hidden": (HIDDEN_BEGIN, HIDDEN_END),
}


class MarkerError(ValueError):
    """A cell whose regions nbgrader would reject: nested, unterminated or stray markers.

    ``line`` is the 1-based line of the cell it is about and ``reason`` what is wrong there,
    so a caller that knows where the cell came from can name that file and line instead."""

    def __init__(self, where: str, line: int, reason: str) -> None:
        super().__init__(f"{where}:{line}: {reason}")
        self.line, self.reason = line, reason


@dataclass(frozen=True)
class Line:
    """One line of a cell: its text, its 1-based number, and the region it lies in.

    ``region`` is ``"solution"``, ``"hidden"`` or ``None`` (visible); marker lines
    themselves have ``marker=True`` and the region they open or close.
    """

    text: str
    number: int
    region: str | None
    marker: bool = False


def _marker(line: str) -> tuple[str, bool] | None:
    """(region, is_begin) when the line is a marker line, else None."""
    stripped = line.strip()
    for name, (begin, end) in REGIONS.items():
        if stripped == begin:
            return name, True
        if stripped == end:
            return name, False
    for name, (begin, end) in REGIONS.items():
        if begin in line or end in line:
            # nbgrader matches markers anywhere in a line; a marker with text around it
            # would be honoured by nbgrader and missed by a strict equality test.
            return name, begin in line
    return None


def split(source: str, where: str = "<cell>") -> list[Line]:
    """Every line of ``source`` labelled with its region; raises :class:`MarkerError`.

    ``where`` names the cell in error messages (for example ``"lab01.ipynb cell agent"``).
    """
    out: list[Line] = []
    current: str | None = None
    opened_at = 0
    for n, text in enumerate(source.split("\n"), 1):
        found = _marker(text)
        if found is None:
            out.append(Line(text, n, current))
            continue
        name, begin = found
        if begin:
            if current is not None:
                above = n - opened_at
                raise MarkerError(where, n, f"{REGIONS[name][0]!r} inside the {current} region "
                                  f"opened {above} line{'s' * (above != 1)} above; regions "
                                  "cannot nest")
            current, opened_at = name, n
        else:
            if current != name:
                raise MarkerError(where, n, f"{REGIONS[name][1]!r} closes no open region")
            current = None
        out.append(Line(text, n, name, marker=True))
    if current is not None:
        raise MarkerError(where, opened_at, f"the {current} region opened here is never "
                          f"closed; add {REGIONS[current][1]!r}")
    return out


def lines_in(source: str, region: str, where: str = "<cell>") -> list[str]:
    """The lines inside every ``region`` region of ``source``, markers excluded."""
    return [ln.text for ln in split(source, where) if ln.region == region and not ln.marker]


def visible(source: str, where: str = "<cell>") -> list[str]:
    """The lines outside every region, markers excluded."""
    return [ln.text for ln in split(source, where) if ln.region is None]


def without(source: str, drop: tuple[str, ...] = ("hidden",), *,
            keep_markers_of: tuple[str, ...] = (), where: str = "<cell>") -> str:
    """``source`` with the regions named in ``drop`` removed and every other marker line
    dropped, except the markers of regions in ``keep_markers_of``."""
    kept = [ln.text for ln in split(source, where)
            if ln.region not in drop and (not ln.marker or ln.region in keep_markers_of)]
    return "\n".join(kept)


def answer_text(source: str, where: str = "<cell>") -> str:
    """What a student who wrote the solution would have in the cell: the solution
    markers dropped, the answer kept."""
    return without(source, drop=(), keep_markers_of=("hidden",), where=where)


def strip_hidden(source: str, where: str = "<cell>") -> str:
    """The cell without its hidden-test regions (solution markers kept as they are)."""
    return without(source, drop=("hidden",), keep_markers_of=("solution",), where=where)


@dataclass(frozen=True)
class TestParts:
    """A graded test cell cut where it runs.

    ``kernel`` is what the student's kernel executes: the visible checks, then the record
    part of the hidden region (which must bind ``rec``). ``judge`` runs in the grader on
    that record. ``legacy`` is a hidden region with no :data:`JUDGE` line, which could only
    run inside the kernel; ``has_hidden`` tells whether the cell has a hidden region at all.

    The line fields are 1-based lines of the cell's source, so an error can name the line to
    edit: ``record_lines[i]`` is where line ``i + 1`` of ``record`` stands (likewise
    ``judge_lines``), ``hidden_line`` is the first ``### BEGIN HIDDEN TESTS`` and
    ``judge_line`` the :data:`JUDGE` line (0 when there is none).
    """

    kernel: str
    judge: str
    record: str
    legacy: bool
    has_hidden: bool
    record_lines: tuple[int, ...] = ()
    judge_lines: tuple[int, ...] = ()
    hidden_line: int = 0
    judge_line: int = 0


def test_parts(source: str, where: str = "<cell>") -> TestParts:
    """Split a test cell into its kernel part and its judge; raises :class:`MarkerError`
    for a judge line outside a hidden region or given twice."""
    kernel: list[str] = []
    record: list[str] = []
    judge: list[str] = []
    record_at: list[int] = []
    judge_at: list[int] = []
    judges = 0
    hidden_line = judge_line = 0
    for ln in split(source, where):
        if ln.marker:
            if ln.region == "hidden" and not hidden_line:
                hidden_line = ln.number
            continue
        if ln.text.strip() == JUDGE:
            if ln.region != "hidden":
                raise MarkerError(where, ln.number, f"{JUDGE!r} outside a hidden-test region")
            judges += 1
            judge_line = judge_line or ln.number
            if judges > 1:
                raise MarkerError(where, ln.number, f"a second {JUDGE!r}; a cell has one record "
                                  "part and one judge")
            continue
        if ln.region == "hidden" and judges:
            judge.append(ln.text)
            judge_at.append(ln.number)
            continue
        if ln.region == "hidden":
            record.append(ln.text)
            record_at.append(ln.number)
        kernel.append(ln.text)
    hidden = bool(hidden_line)
    legacy = hidden and not judges
    if legacy:
        record, record_at = [], []  # the old form: the whole hidden region ran in the kernel
    return TestParts("\n".join(kernel), "\n".join(judge), "\n".join(record), legacy, hidden,
                     tuple(record_at), tuple(judge_at), hidden_line, judge_line)
