"""The class report as one self-contained HTML page, built from what grading produced.

One file an instructor opens in any browser, offline. It opens with what to act on: a table
of contents, then the submissions that failed to grade or await review, and per assignment
the students graded, mean and median, the share at full marks and the most common diagnosed
bugs. Then the diagnosed bugs in words (the seeded bug a student's lost cells look like, with
the others that lose the same cells), a heatmap of students x autograded cells per notebook
(rows sort by student, by score or by one cell; columns by pass rate; the footer holds each
cell's pass rate), and a score histogram per assignment with labelled axes. Each student's
name links to their feedback page when ``course feedback`` has written it.

Styles, script and charts (hand-drawn SVG) are inline; a Content-Security-Policy forbids every
fetch and runs only the page's own script. Every string a student controls (ids, review
reasons, error text) is HTML-escaped, and a link's path is percent-encoded.
"""

from __future__ import annotations

import base64
import hashlib
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from urllib.parse import quote

from ..proofs.mutation import Mutant
from .diagnose import Diagnosis, bug_name, bug_sentence
from .model import FEEDBACK_DIR, ClassResults, DiagnosisGroup, write_atomically

#: Where ``course grade`` and ``course report`` write the page, inside the course folder.
REPORT_PATH = Path("reports") / "class_report.html"
#: A histogram gets one bar per point up to this many points, ten bars beyond it.
MAX_POINT_BARS = 30
#: The summary names this many of an assignment's most common diagnoses.
TOP_DIAGNOSES = 3
#: A diagnosis lists this many other bugs as close as the best match; the rest fold away.
MAX_OTHERS = 3

_CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:1em 1.5em;color:#222;
 max-width:1400px;overflow-wrap:break-word}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.25em;margin-top:1.8em;
 border-bottom:1px solid #ccc}h3{font-size:1.05em;margin:1.2em 0 .3em}
nav.toc ul{display:flex;flex-wrap:wrap;gap:.2em 1.4em;list-style:none;padding:0;margin:.4em 0}
table{border-collapse:collapse;margin:.5em 0;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
table.wide{width:100%}
td.n,th.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.id,td.reason{overflow-wrap:anywhere}td.reason{min-width:12em}
td.words{min-width:16em}td.who{min-width:8em;max-width:20em}
ul.top,ul.others{margin:0;padding-left:1.2em}ul.top{list-style:none;padding:0}p.best{margin:0}
div.grid{max-width:100%;overflow-x:auto}
.heatmap th,.heatmap td{vertical-align:bottom}
.heatmap td.c{width:2em;min-width:2em;height:1.6em;padding:2px;text-align:center;
 font-variant-numeric:tabular-nums}
.heatmap th.c{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;
 cursor:pointer;font-weight:normal;padding:4px 2px}
.heatmap th.s{max-width:11em;overflow-wrap:anywhere;font-weight:normal}
.heatmap td.diag{min-width:9em;max-width:18em}
.heatmap th[data-sort]{cursor:pointer}.heatmap th[data-sort]:hover{background:#eef}
td.pass{background:#3a9d4f;color:#fff}td.part{background:#f0b43c}
td.fail{background:#d64541;color:#fff}td.none{background:#ccc}
tr.flagged th.s::after{content:" needs review";color:#b05000;font-size:.8em}
tr.failed td.status{color:#b00;font-weight:bold}tr.review td.status{color:#b05000;
 font-weight:bold}
.muted{color:#666}.warn{color:#b00;font-weight:bold}
button{margin:0 .4em .3em 0}
div.histograms{display:flex;flex-wrap:wrap;gap:1em 2em}
figure{margin:.5em 0;max-width:100%}svg.histogram{max-width:100%;height:auto}
svg text{font:11px system-ui,sans-serif}svg text.axis-label{font-size:12px;fill:#444}
"""

_JS = """
document.querySelectorAll('table.heatmap').forEach(function (table) {
  var body = table.tBodies[0];
  var controls = table.closest('section.notebook');
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
  controls.querySelectorAll('button[data-columns]').forEach(function (b) {
    b.addEventListener('click', function () { orderColumns(b.dataset.columns); });
  });
  controls.querySelectorAll('button[data-rows]').forEach(function (b) {
    b.addEventListener('click', function () { sortRows(b.dataset.rows); });
  });
});
"""

#: The page's sections, in order: (id, heading).
SECTIONS = (("summary", "Summary"), ("attention", "Needs attention"),
            ("diagnoses", "Diagnosed bugs"), ("heatmap", "Students x autograded cells"),
            ("histograms", "Score histograms"))


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


class _Anchors:
    """One id per key, readable and unique on the page: the sections' ids first, then an
    id made from each key's words (anything but letters, digits, ``_`` and ``-`` becomes
    ``-``; a clash gets ``-2``, ``-3``...)."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, ...], str] = {(name,): name for name, _ in SECTIONS}
        self._used = set(self._ids.values())

    def __call__(self, *key: str) -> str:
        if key not in self._ids:
            base = re.sub(r"[^a-z0-9_-]+", "-", "-".join(key).lower()).strip("-")[:60] or "x"
            found, n = base, 1
            while found in self._used:
                n += 1
                found = f"{base}-{n}"
            self._used.add(found)
            self._ids[key] = found
        return self._ids[key]


@dataclass(frozen=True)
class Links:
    """Where the page's links lead: each student's feedback page, written by ``course
    feedback`` under ``<course_dir>/feedback/<student>/<assignment>/<notebook>.html``, as a
    path relative to the folder the report is written to (``report``). A page that does
    not exist gets no link."""

    course_dir: Path
    report: Path

    def feedback(self, student: str, assignment: str, notebook: str | None = None
                 ) -> str | None:
        """The relative, percent-encoded link to a student's feedback page of one notebook
        (or of the assignment's first notebook that has one), or None without a page."""
        root = (self.course_dir / FEEDBACK_DIR).resolve()
        folder = root / student / assignment
        try:
            pages = ([folder / f"{notebook}.html"] if notebook is not None
                     else sorted(folder.glob("*.html")))
            page = next((p.resolve() for p in pages if p.is_file()), None)
        except (OSError, ValueError):  # a student id no file name can hold has no page
            return None
        if page is None or not page.is_relative_to(root):
            return None
        relative = os.path.relpath(page, self.report.resolve().parent)
        return quote(Path(relative).as_posix())


def _student(name: str, links: Links | None, assignment: str,
             notebook: str | None = None) -> str:
    """A student's id, as a link to their feedback page when there is one."""
    href = None if links is None else links.feedback(name, assignment, notebook)
    if href is None:
        return f'<span class="id">{_e(name)}</span>'
    return (f'<a class="id feedback" href="{_e(href)}" title="feedback page of {_e(name)}">'
            f"{_e(name)}</a>")


def _bug(m: Mutant) -> str:
    return (f'<b class="bug-name">{_e(bug_name(m))}</b>: '
            f'<span class="bug-sentence">{_e(bug_sentence(m))}</span>')


def _label(d: Diagnosis) -> str:
    """A diagnosis in a few words: the best match's short name, or what else it is."""
    if d.everything:
        return "nothing implemented?"
    if not d.bugs:
        return "no known bug"
    more = f" (or {len(d.bugs) - 1} more)" if len(d.bugs) > 1 else ""
    return ("" if d.similarity == 1.0 else "closest: ") + bug_name(d.bugs[0]) + more


def _words(d: Diagnosis) -> str:
    """A diagnosis in plain words: the best match's name and sentence, the cells that bug
    loses, and the other bugs as close as it as a short list."""
    if d.everything:
        return ('<p class="best">Every autograded cell lost: nothing implemented yet, or the '
                "notebook stops before its first graded cell.</p>")
    if not d.bugs:
        return ('<p class="best">No seeded bug loses these cells: see the grid below for '
                "which cells each student lost.</p>")
    exact = d.similarity == 1.0
    best, others = d.bugs[0], d.bugs[1:]
    loses = ", ".join(sorted(best.loses))
    out = [f'<p class="best">{"Looks like" if exact else "Closest to"} {_bug(best)}</p>',
           f'<p class="muted">This bug loses: <span class="id">{_e(loses)}</span>'
           + ("" if exact else f"; the lost cells overlap it by {100 * d.similarity:.0f}%")
           + ".</p>"]
    if others:
        shown = "".join(f"<li>{_bug(m)}</li>" for m in others[:MAX_OTHERS])
        rest = others[MAX_OTHERS:]
        more = (f'<details><summary>and {len(rest)} more</summary><ul class="others">'
                + "".join(f"<li>{_bug(m)}</li>" for m in rest) + "</ul></details>"
                if rest else "")
        alike = "which lose the same cells" if exact else "as close"
        out.append(f'<p class="muted">Or one of these, {alike}:</p>'
                   f'<ul class="others">{shown}</ul>{more}')
    return "".join(out)


def _problem_rows(results: ClassResults) -> list[tuple[str, str, str, str]]:
    """``(student, assignment, status, reason)`` of every failed, then every flagged
    submission."""
    rows = [(student, assignment, "failed", error or "no notebook graded")
            for (student, assignment), error in sorted(results.failed.items())]
    for key, what in sorted(results.reviews.items()):
        student, _, assignment = key.partition("/")
        more = f" (and {len(what) - 5} more)" if len(what) > 5 else ""
        rows.append((student, assignment, "needs review",
                     "; ".join(what[:5]) + more + "; autograded cells score 0 until cleared"))
    return rows


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


def _attention(results: ClassResults, links: Links | None) -> str:
    """The submissions an instructor must act on: failed to grade, or awaiting review."""
    rows = _problem_rows(results)
    if not rows:
        return '<p class="none">None: every submission graded and none awaits review.</p>'
    body = "".join(
        f'<tr class="{"failed" if status == "failed" else "review"}" '
        f'data-student="{_e(student)}"><td>'
        f"{_student(student, links, assignment)}</td>"
        f'<td>{_e(assignment)}</td><td class="status">{status}</td>'
        f'<td class="reason">{_e(_one_line(reason))}</td></tr>'
        for student, assignment, status, reason in rows)
    return ('<table class="problems wide"><thead><tr><th>student</th><th>assignment</th>'
            f"<th>status</th><th>reason</th></tr></thead><tbody>{body}</tbody></table>"
            '<p class="muted">A flagged submission is cleared with <code>course grade --clear '
            "STUDENT/ASSIGNMENT</code>; a failed one gets no feedback page until it grades."
            "</p>")


def _groups_of(results: ClassResults, assignment: str) -> list[DiagnosisGroup]:
    return [g for g in results.diagnosis_groups if g.assignment == assignment]


def _summary(results: ClassResults, anchors: _Anchors) -> str:
    """Per assignment: students graded, mean and median, full marks, failed and flagged,
    the most common diagnoses."""
    first_notebook: dict[str, str] = {}
    for a, nb in results.by_notebook:
        first_notebook.setdefault(a, nb)
    rows = []
    for s in results.summaries:
        name = _e(s.assignment)
        if s.assignment in first_notebook:
            name = (f'<a href="#{anchors("nb", s.assignment, first_notebook[s.assignment])}">'
                    f"{name}</a>")
        top = _groups_of(results, s.assignment)[:TOP_DIAGNOSES]
        bugs = "".join(
            f'<li><b class="count">{len(g.students)}</b> '
            f'<a href="#{anchors("diag", g.assignment, g.diagnosis.text)}">'
            f"{_e(_label(g.diagnosis))}</a></li>" for g in top)
        bugs = f'<ul class="top">{bugs}</ul>' if bugs else "none"
        mean = "-" if s.mean is None else f"{s.mean:.1f} / {s.max_score:g}"
        median = "-" if s.median is None else f"{s.median:g}"
        rows.append(
            f'<tr data-assignment="{_e(s.assignment)}" data-graded="{s.graded}" '
            f'data-full="{s.full_marks}"><th scope="row">{name}</th>'
            f'<td class="n">{s.graded}</td><td class="n">{mean}</td>'
            f'<td class="n">{median}</td>'
            f'<td class="n">{s.full_marks} ({_pct(s.full_marks, s.graded)})</td>'
            f'<td class="n">{s.failed}</td><td class="n">{s.flagged}</td>'
            f'<td class="words">{bugs}</td></tr>')
    if not rows:
        return "<p>Nothing graded yet.</p>"
    return ('<table class="summary wide"><thead><tr><th>assignment</th>'
            '<th class="n">graded</th><th class="n">mean</th><th class="n">median</th>'
            '<th class="n">full marks</th><th class="n">failed</th>'
            '<th class="n">awaiting review</th><th>most common diagnoses (students)</th>'
            f'</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            '<p class="muted">Autograded points only; a submission awaiting review counts at '
            "the 0 its autograded cells carry until cleared.</p>")


def _diagnoses(results: ClassResults, links: Links | None, anchors: _Anchors) -> str:
    """Per assignment, the students who share each diagnosis, most common first; a
    submission awaiting review scores 0 and is left out."""
    note = "" if any(results.mutants.values()) else (
        '<p class="muted">No seeded bugs were found for these assignments '
        "(tests/mutants/), so lost cells are not matched to a bug.</p>")
    if not results.diagnosis_groups:
        return note + "<p>Nobody lost an autograded cell.</p>"
    out = [note]
    for assignment in sorted({g.assignment for g in results.diagnosis_groups}):
        body = "".join(
            f'<tr id="{anchors("diag", g.assignment, g.diagnosis.text)}" '
            f'data-count="{len(g.students)}"><td class="n">{len(g.students)}</td>'
            f'<td class="words">{_words(g.diagnosis)}</td><td class="who">'
            + ", ".join(_student(s, links, assignment)
                        for s in g.students)
            + "</td></tr>" for g in _groups_of(results, assignment))
        out.append(f'<h3 id="{anchors("diagnoses", assignment)}" class="id">{_e(assignment)}'
                   '</h3><table class="diagnoses wide"><thead><tr><th class="n">students</th>'
                   f"<th>diagnosis</th><th>who</th></tr></thead><tbody>{body}</tbody></table>")
    return "".join(out)


def _heatmap(results: ClassResults, assignment: str, notebook: str, links: Links | None,
             anchors: _Anchors) -> str:
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
        d = results.diagnosis_of(r)
        if flag:
            diagnosis = '<a href="#attention">awaiting review</a>'
        elif not d.lost:
            diagnosis = "full marks"
        else:
            diagnosis = (f'<a href="#{anchors("diag", assignment, d.text)}">'
                         f"{_e(_label(d))}</a>")
        css = ' class="flagged"' if flag else ""
        name = _student(r.student, links, assignment, notebook)
        body.append(f'<tr data-student="{_e(r.student)}" data-total="{r.auto_score:g}"{css}>'
                    f'<th class="s" scope="row">{name}</th>{"".join(tds)}'
                    f'<td class="end total n">{r.auto_score:g}/{r.auto_max:g}</td>'
                    f'<td class="diag">{diagnosis}</td></tr>')
    foot = "".join(f'<td class="c" data-col="{i}" data-cell="{_e(s.grade_id)}" '
                   f'data-passed="{s.passed}" '
                   f'data-graded="{s.graded}" title="{_e(s.grade_id)}: {s.passed} of '
                   f'{s.graded} with full points">{100 * s.rate:.0f}%</td>'
                   for i, s in enumerate(stats))
    return (f'<section class="notebook" id="{anchors("nb", assignment, notebook)}">'
            f'<h3 class="id">{_e(notebook)}'
            + (f' <span class="muted">({_e(assignment)})</span>' if notebook != assignment
               else "") + "</h3>"
            '<p><button type="button" data-rows="student">students A-Z</button>'
            '<button type="button" data-rows="score">highest score first</button>'
            '<button type="button" data-columns="rate">cells by pass rate</button>'
            '<button type="button" data-columns="notebook">cells in notebook order</button>'
            '<span class="muted"> Click a cell name to put the students who lost it '
            "first.</span></p>"
            f'<div class="grid"><table class="heatmap" data-assignment="{_e(assignment)}" '
            f'data-notebook="{_e(notebook)}" data-sorted="student" data-columns="notebook">'
            f'<thead><tr><th data-sort="student">student</th>{head}'
            '<th class="end n" data-sort="score">auto total</th><th>diagnosis</th></tr>'
            f'</thead><tbody>{"".join(body)}</tbody>'
            f'<tfoot><tr><th>pass rate</th>{foot}<td class="end"></td><td></td></tr></tfoot>'
            "</table></div></section>")


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
    """An inline SVG bar chart of the students' autograded totals, with labelled axes."""
    bins = histogram_bins(totals, max_score)
    left, right, top, bottom = 44, 10, 16, 46
    plot_w, plot_h = max(220, 24 * len(bins)), 110
    width, height = left + plot_w + right, top + plot_h + bottom
    base = top + plot_h
    bar = plot_w / len(bins)
    tallest = max(n for _, n in bins) or 1
    parts = [f'<line x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}" stroke="#888"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#888"/>']
    for tick in sorted({0, tallest, *([tallest // 2] if tallest >= 4 else [])}):
        y = base - plot_h * tick / tallest
        parts.append(f'<text class="tick y" x="{left - 5}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{tick}</text>')
    for i, (label, n) in enumerate(bins):
        h = plot_h * n / tallest
        x = left + i * bar
        parts.append(f'<rect class="bin" data-label="{_e(label)}" data-count="{n}" '
                     f'x="{x + 1:.1f}" y="{base - h:.1f}" width="{bar - 2:.1f}" '
                     f'height="{h:.1f}" fill="#4a78c2"><title>{_e(label)} points: {n} '
                     "student(s)</title></rect>")
        if n:
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{base - h - 3:.1f}" '
                         f'text-anchor="middle">{n}</text>')
        if len(bins) <= 12 or i % max(1, len(bins) // 10) == 0 or i == len(bins) - 1:
            parts.append(f'<text class="tick x" x="{x + bar / 2:.1f}" y="{base + 14}" '
                         f'text-anchor="middle">{_e(label)}</text>')
    parts.append(f'<text class="axis-label x" x="{left + plot_w / 2:.1f}" y="{height - 8}" '
                 f'text-anchor="middle">autograded points (out of {max_score:g})</text>')
    parts.append(f'<text class="axis-label y" x="0" y="0" text-anchor="middle" '
                 f'transform="translate(13 {top + plot_h / 2:.1f}) rotate(-90)">students</text>')
    return (f'<figure><figcaption class="id">{_e(assignment)}: {len(totals)} student(s)'
            f"</figcaption>"
            f'<svg class="histogram" data-assignment="{_e(assignment)}" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{_e(assignment)}: students by autograded points">'
            f'{"".join(parts)}</svg></figure>')


def _histograms(results: ClassResults) -> str:
    totals = results.totals()
    if not totals:
        return "<p>Nothing graded yet.</p>"
    return ('<div class="histograms">'
            + "".join(_histogram(a, got, most) for a, (got, most) in totals.items())
            + "</div>")


def _feedback_note(results: ClassResults, links: Links | None) -> str:
    linked = links is not None and any(links.feedback(r.student, r.assignment, r.notebook)
                                       for r in results.graded)
    if linked:
        return ("A student's name links to their feedback page; a name without a link has "
                "none yet (<code>course feedback</code> writes them).")
    return ("No feedback page is written yet: <code>course feedback</code> writes them and "
            "rewrites this report with each student's name linking to theirs.")


def render(results: ClassResults, *, title: str = "Class report",
           generated: datetime | None = None, links: Links | None = None) -> str:
    """The whole page for these results; with ``links``, student names link to the
    feedback pages that exist."""
    anchors = _Anchors()
    when = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    counts = (f"{len(results.students)} student(s), {len(results.submissions)} graded "
              f"submission(s), {len(results.failed)} failed to grade, "
              f"{len(results.reviews)} awaiting review. Generated {when}.")
    heatmaps = "".join(_heatmap(results, a, nb, links, anchors)
                       for a, nb in results.by_notebook) or "<p>Nothing graded yet.</p>"
    toc = "".join(f'<li><a href="#{anchors(name)}">{_e(heading)}</a></li>'
                  for name, heading in SECTIONS)
    script_hash = base64.b64encode(hashlib.sha256(_JS.encode()).digest()).decode()
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{script_hash}'; "
           "img-src data:")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        f'<header><h1>{_e(title)}</h1><p class="counts">{_e(counts)}</p>'
        + ('<p class="warn">Graded WITHOUT the sandbox (--no-sandbox): student code could '
           "read the course tree and write the gradebook.</p>" if results.unsandboxed else "")
        + "".join(f'<p class="warn">Could not read: {_e(why)}</p>'
                  for why in results.unreadable)
        + f'<nav class="toc" aria-label="Contents"><ul>{toc}</ul></nav></header><main>'
        '<section><h2 id="summary">Summary</h2>'
        '<h3 id="attention">Needs attention: failed and flagged submissions</h3>'
        f"{_attention(results, links)}"
        f"<h3>Per assignment</h3>{_summary(results, anchors)}</section>"
        '<section><h2 id="diagnoses">Diagnosed bugs</h2><p class="muted">Each submission\'s '
        "lost cells matched against the cells each seeded bug loses (submissions awaiting "
        "review are left out).</p>"
        f"{_diagnoses(results, links, anchors)}</section>"
        '<section><h2 id="heatmap">Students x autograded cells</h2>'
        '<p class="muted">Green: full points; amber: some; red: none; grey: no score. '
        "The bottom row is the share of students with full points on the cell. "
        f"{_feedback_note(results, links)}</p>"
        f"{heatmaps}</section>"
        f'<section><h2 id="histograms">Score histograms</h2>{_histograms(results)}</section>'
        f"</main><script>{_JS}</script></body></html>\n")


def course_report(course_dir: Path, which: Sequence[str] | None = None,
                  target: Path | None = None) -> str:
    """The page for everything graded in ``course_dir`` (see
    :meth:`.model.ClassResults.from_course`), to be written at ``target`` (by default
    :data:`REPORT_PATH` in the course folder), which its feedback links are relative to."""
    return render(ClassResults.from_course(course_dir, which),
                  title=f"Class report: {course_dir.name}",
                  links=Links(course_dir, target or course_dir / REPORT_PATH))


def write(page: str, target: Path) -> Path:
    """Write the page to ``target`` (its folder is created); return the absolute path."""
    target = target.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, page)
    return target
