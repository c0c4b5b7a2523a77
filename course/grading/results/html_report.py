"""The class report as one self-contained HTML page, built from what grading produced.

One file an instructor opens in any browser, offline: a heatmap of students x autograded
cells per notebook (rows sort by student, by score or by one cell; columns by pass rate),
the pass rate of every cell, the seeded bug each student's lost cells look like and how
many students share it, a score histogram per assignment, and every submission that failed
to grade or awaits review, with its reason. Styles, script and charts (hand-drawn SVG) are
inline; a Content-Security-Policy forbids every fetch and runs only the page's own script.
Every string a student controls (ids, review reasons, error text) is HTML-escaped.
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from .model import ClassResults, write_atomically

#: Where ``course grade`` and ``course report`` write the page, inside the course folder.
REPORT_PATH = Path("reports") / "class_report.html"
#: A histogram gets one bar per point up to this many points, ten bars beyond it.
MAX_POINT_BARS = 30

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:bottom}
.heatmap td.c{width:2.2em;height:1.6em;text-align:center;font-variant-numeric:tabular-nums}
.heatmap th.c{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;
 cursor:pointer;font-weight:normal;max-height:16em}
.heatmap th[data-sort]{cursor:pointer}.heatmap th[data-sort]:hover{background:#eef}
td.pass{background:#3a9d4f;color:#fff}td.part{background:#f0b43c}
td.fail{background:#d64541;color:#fff}td.none{background:#ccc}
tr.flagged th.s::after{content:" needs review";color:#b05000;font-size:.8em}
.bar{display:inline-block;height:.8em;background:#3a9d4f}
.bar.low{background:#d64541}.muted{color:#666}.warn{color:#b00;font-weight:bold}
button{margin-right:.4em}svg text{font:11px system-ui,sans-serif}
"""

_JS = """
document.querySelectorAll('table.heatmap').forEach(function (table) {
  var body = table.tBodies[0];
  function score(row, col) {
    var td = row.querySelector('td[data-col="' + col + '"]');
    return td && td.dataset.score !== '' ? Number(td.dataset.score) : -1;
  }
  function byName(a, b) {
    var x = a.dataset.student, y = b.dataset.student;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  function sortRows(how) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      if (how === 'student') return byName(a, b);
      if (how === 'score') return Number(b.dataset.total) - Number(a.dataset.total) || byName(a, b);
      return score(a, how) - score(b, how) || byName(a, b);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    table.dataset.sorted = how;
  }
  function orderColumns(how) {
    var heads = Array.prototype.slice.call(table.tHead.rows[0].querySelectorAll('th.c'));
    heads.sort(function (a, b) {
      return how === 'rate' ? Number(a.dataset.rate) - Number(b.dataset.rate)
        || Number(a.dataset.col) - Number(b.dataset.col)
        : Number(a.dataset.col) - Number(b.dataset.col);
    });
    var order = heads.map(function (h) { return h.dataset.col; });
    Array.prototype.forEach.call(table.rows, function (row) {
      var end = row.querySelector('.end');
      order.forEach(function (col) {
        row.insertBefore(row.querySelector('[data-col="' + col + '"]'), end);
      });
    });
    table.dataset.columns = how;
  }
  table.querySelectorAll('th[data-sort]').forEach(function (th) {
    th.addEventListener('click', function () { sortRows(th.dataset.sort); });
  });
  table.parentNode.querySelectorAll('button[data-columns]').forEach(function (b) {
    b.addEventListener('click', function () { orderColumns(b.dataset.columns); });
  });
  table.parentNode.querySelectorAll('button[data-rows]').forEach(function (b) {
    b.addEventListener('click', function () { sortRows(b.dataset.rows); });
  });
});
"""


def _e(value: object) -> str:
    """Escaped for HTML text and for a double- or single-quoted attribute."""
    return escape(str(value), quote=True)


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _heat(score: float | None, max_score: float) -> str:
    if score is None:
        return "none"
    if score >= max_score:
        return "pass"
    return "fail" if score <= 0 else "part"


def _heatmap(results: ClassResults, assignment: str, notebook: str) -> str:
    """One notebook's students x autograded cells, with its pass-rate row and sort controls."""
    group = results.by_notebook[(assignment, notebook)]
    stats = results.cell_stats(assignment, notebook)
    head = "".join(
        f'<th class="c" data-col="{i}" data-cell="{_e(s.grade_id)}" data-rate="{s.rate:.4f}" '
        f'data-sort="{i}" title="{_e(s.grade_id)} ({_num(s.max_score)} pt): sort students by '
        f'this cell">{_e(s.grade_id)}</th>' for i, s in enumerate(stats))
    body = []
    for r in group:
        got = {c.grade_id: c for c in r.cells}
        tds = []
        for i, s in enumerate(stats):
            c = got.get(s.grade_id)
            value = None if c is None else c.score
            tds.append(f'<td class="c {_heat(value, s.max_score)}" data-col="{i}" '
                       f'data-cell="{_e(s.grade_id)}" data-score="{_num(value)}" '
                       f'title="{_e(r.student)}: {_e(s.grade_id)} {_num(value) or "?"}/'
                       f'{_num(s.max_score)}">{_num(value) or "?"}</td>')
        flag = (r.student, assignment) in results.flagged
        diagnosis = ("awaiting review: autograded cells score 0 until cleared" if flag
                     else results.diagnosis_of(r).text)
        css = ' class="flagged"' if flag else ""
        body.append(f'<tr data-student="{_e(r.student)}" data-total="{r.auto_score:g}"{css}>'
                    f'<th class="s" scope="row">{_e(r.student)}</th>{"".join(tds)}'
                    f'<td class="end total">{r.auto_score:g}/{r.auto_max:g}</td>'
                    f"<td>{_e(diagnosis)}</td></tr>")
    foot = "".join(f'<td class="c" data-col="{i}">{100 * s.rate:.0f}%</td>'
                   for i, s in enumerate(stats))
    return (f'<section class="notebook"><h3>{_e(assignment)}/{_e(notebook)}</h3>'
            '<p><button type="button" data-rows="student">students A-Z</button>'
            '<button type="button" data-rows="score">highest score first</button>'
            '<button type="button" data-columns="rate">cells by pass rate</button>'
            '<button type="button" data-columns="notebook">cells in notebook order</button>'
            '<span class="muted"> Click a cell name to put the students who lost it '
            "first.</span></p>"
            f'<table class="heatmap" data-assignment="{_e(assignment)}" '
            f'data-notebook="{_e(notebook)}" data-sorted="student" data-columns="notebook">'
            f'<thead><tr><th data-sort="student">student</th>{head}'
            '<th class="end" data-sort="score">auto total</th><th>diagnosis</th></tr></thead>'
            f'<tbody>{"".join(body)}</tbody>'
            f'<tfoot><tr><th>pass rate</th>{foot}<td class="end"></td><td></td></tr></tfoot>'
            "</table></section>")


def _pass_rates(results: ClassResults) -> str:
    rows = []
    for assignment, notebook in results.by_notebook:
        for s in results.cell_stats(assignment, notebook):
            rows.append(
                f'<tr data-cell="{_e(s.grade_id)}" data-passed="{s.passed}" '
                f'data-graded="{s.graded}"><td>{_e(assignment)}/{_e(notebook)}</td>'
                f"<td>{_e(s.grade_id)}</td><td>{_num(s.max_score)}</td>"
                f"<td>{s.passed}/{s.graded}</td><td>{_pct(s.passed, s.graded)} "
                f'<span class="bar{" low" if s.rate < 0.5 else ""}" '
                f'style="width:{100 * s.rate:.0f}px"></span></td></tr>')
    if not rows:
        return "<p>No autograded cells.</p>"
    return ('<table class="rates"><thead><tr><th>notebook</th><th>cell</th><th>points</th>'
            f'<th>passed</th><th>pass rate</th></tr></thead><tbody>{"".join(rows)}'
            "</tbody></table>")


def _diagnoses(results: ClassResults) -> str:
    """Students per diagnosis; a submission awaiting review scores 0 and is left out."""
    if not results.diagnosed:
        return "<p>Nobody lost an autograded cell.</p>"
    body = "".join(
        f'<tr data-count="{len(names)}"><td>{len(names)}</td><td>{_e(assignment)}</td>'
        f'<td>{_e(text)}</td><td>{_e(", ".join(names))}</td></tr>'
        for (assignment, text), names in results.diagnosed.items())
    note = "" if any(results.mutants.values()) else (
        '<p class="muted">No seeded bugs were found for these assignments '
        "(tests/mutants/), so lost cells are not matched to a bug.</p>")
    return (f"{note}<table class=\"diagnoses\"><thead><tr><th>students</th><th>assignment</th>"
            f"<th>diagnosis</th><th>who</th></tr></thead><tbody>{body}</tbody></table>")


def histogram_bins(totals: Sequence[float], max_score: float) -> list[tuple[str, int]]:
    """``(label, students)`` per bar: one bar per point when the assignment is worth at most
    :data:`MAX_POINT_BARS` whole points (a fractional score counts in the bar below it), ten
    bars of a tenth of the points each otherwise."""
    if max_score <= MAX_POINT_BARS and float(max_score).is_integer():
        top = int(max_score)
        counts = [0] * (top + 1)
        for t in totals:
            counts[min(top, max(0, math.floor(t)))] += 1
        return [(f"{i:g}", n) for i, n in enumerate(counts)]
    counts = [0] * 10
    for t in totals:
        counts[min(9, max(0, math.floor(10 * t / max_score)))] += 1
    return [(f"{max_score * i / 10:g}-{max_score * (i + 1) / 10:g}", n)
            for i, n in enumerate(counts)]


def _histogram(assignment: str, totals: list[float], max_score: float) -> str:
    """An inline SVG bar chart of the students' autograded totals."""
    bins = histogram_bins(totals, max_score)
    width, height, pad = max(240, 26 * len(bins)), 150, 24
    bar = (width - 2 * pad) / len(bins)
    tallest = max(n for _, n in bins) or 1
    parts = [f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" '
             'stroke="#888"/>']
    for i, (label, n) in enumerate(bins):
        h = (height - 2 * pad) * n / tallest
        x = pad + i * bar
        parts.append(f'<rect class="bin" data-label="{_e(label)}" data-count="{n}" '
                     f'x="{x + 1:.1f}" y="{height - pad - h:.1f}" width="{bar - 2:.1f}" '
                     f'height="{h:.1f}" fill="#4a78c2"><title>{_e(label)} points: {n} '
                     "student(s)</title></rect>")
        if n:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - pad - h - 3:.1f}" '
                         f'text-anchor="middle">{n}</text>')
        if len(bins) <= 12 or i % max(1, len(bins) // 10) == 0 or i == len(bins) - 1:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{height - pad + 14}" '
                         f'text-anchor="middle">{_e(label)}</text>')
    return (f'<figure><figcaption>{_e(assignment)}: autograded points out of '
            f"{max_score:g}, {len(totals)} student(s)</figcaption>"
            f'<svg class="histogram" data-assignment="{_e(assignment)}" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img">'
            f'{"".join(parts)}</svg></figure>')


def _histograms(results: ClassResults) -> str:
    totals = results.totals()
    if not totals:
        return "<p>Nothing graded yet.</p>"
    return "".join(_histogram(a, got, most) for a, (got, most) in totals.items())


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


def _problems(results: ClassResults) -> str:
    rows = [(student, assignment, "failed", error or "no notebook graded")
            for (student, assignment), error in sorted(results.failed.items())]
    for key, what in sorted(results.reviews.items()):
        student, _, assignment = key.partition("/")
        more = f" (and {len(what) - 5} more)" if len(what) > 5 else ""
        rows.append((student, assignment, "needs review",
                     "; ".join(what[:5]) + more + "; autograded cells score 0 until cleared"))
    if not rows:
        return "<p>None: every submission graded and none awaits review.</p>"
    body = "".join(
        f'<tr class="{"failed" if status == "failed" else "review"}" '
        f'data-student="{_e(student)}"><td>{_e(student)}</td><td>{_e(assignment)}</td>'
        f"<td>{status}</td><td>{_e(_one_line(reason))}</td></tr>"
        for student, assignment, status, reason in rows)
    return ('<p class="muted">A flagged submission is cleared with <code>course grade --clear '
            "STUDENT/ASSIGNMENT</code>.</p><table class=\"problems\"><thead><tr><th>student"
            "</th><th>assignment</th><th>status</th><th>reason</th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


def render(results: ClassResults, *, title: str = "Class report",
           generated: datetime | None = None) -> str:
    """The whole page for these results."""
    when = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    summary = (f"{len(results.students)} student(s), {len(results.submissions)} graded "
               f"submission(s), {len(results.failed)} failed to grade, "
               f"{len(results.reviews)} awaiting review. Generated {when}.")
    heatmaps = "".join(_heatmap(results, a, nb) for a, nb in results.by_notebook) \
        or "<p>Nothing graded yet.</p>"
    script_hash = base64.b64encode(hashlib.sha256(_JS.encode()).digest()).decode()
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{script_hash}'; "
           "img-src data:")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{_e(title)}</h1><p>{_e(summary)}</p>"
        + ('<p class="warn">Graded WITHOUT the sandbox (--no-sandbox): student code could '
           "read the course tree and write the gradebook.</p>" if results.unsandboxed else "")
        + "".join(f'<p class="warn">Could not read: {_e(why)}</p>'
                  for why in results.unreadable)
        + '<h2 id="heatmap">Students x autograded cells</h2>'
        '<p class="muted">Green: full points; amber: some; red: none; grey: no score. '
        "The bottom row is the share of students with full points on the cell.</p>"
        f"{heatmaps}"
        f'<h2 id="pass-rates">Pass rate per cell</h2>{_pass_rates(results)}'
        '<h2 id="diagnoses">Diagnosed bugs</h2><p class="muted">Each submission\'s lost cells '
        "matched against the cells each seeded bug loses (submissions awaiting review are left "
        "out).</p>"
        f"{_diagnoses(results)}"
        f'<h2 id="histograms">Score histograms</h2>{_histograms(results)}'
        f'<h2 id="problems">Failed and flagged submissions</h2>{_problems(results)}'
        f"<script>{_JS}</script></body></html>\n")


def course_report(course_dir: Path, which: Sequence[str] | None = None) -> str:
    """The page for everything graded in ``course_dir`` (see
    :meth:`.model.ClassResults.from_course`)."""
    return render(ClassResults.from_course(course_dir, which),
                  title=f"Class report: {course_dir.name}")


def write(page: str, target: Path) -> Path:
    """Write the page to ``target`` (its folder is created); return the absolute path."""
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, page)
    return target
