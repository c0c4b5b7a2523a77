"""Judges: the half of a hidden test that runs in the grader's process, on a record.

A test cell's hidden region is written in two parts (see :mod:`.markers`)::

    ### BEGIN HIDDEN TESTS
    out = outcome(agent, ...)              # runs in the kernel: observe, never assert
    rec = record(out=out, requests=api.requests)
    ### JUDGE
    assert rec["out"]["value"] == "...", "the message the student reads"
    ### END HIDDEN TESTS

The record part runs in the student's kernel and binds ``rec`` with :func:`course.observe.record`.
The judge runs here, in a namespace holding only ``rec`` (plain JSON data), the builtins and
what the judge imports itself; :func:`problems` proves that statically when a notebook is
built, so a judge that works in a kernel-side quick run works here too.
"""

from __future__ import annotations

import ast
import builtins
import sys
import time
from typing import Any

from .. import syntax
from ..authoring.markers import TestParts

#: The one name a judge reads that it does not bind itself.
RECORD_NAME = "rec"
#: The largest record the grader accepts from a kernel, in characters of JSON.
MAX_RECORD_CHARS = 4_000_000
#: How long one judge may run, in seconds: one that runs past it fails its cell (a judge
#: reads a record the kernel made, so its time is the kernel's to spend, within this).
JUDGE_SECONDS = 20.0


class JudgeFailed(AssertionError):
    """A judge decided against the cell; the message is what the student reads."""


def _bound(tree: ast.AST) -> set[str]:
    """Every name the code binds anywhere: assignments, imports, defs, loop and
    comprehension targets, handlers, parameters."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            out.add(node.id)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
    return out


def _log_reads(record: ast.AST) -> list[ast.Attribute]:
    """Places where the record part reads a fake's ``.requests`` other than whole (as a
    keyword argument, an assigned value, a dict value or a return value)."""
    whole: set[int] = set()
    for node in ast.walk(record):
        if isinstance(node, ast.keyword | ast.Assign | ast.Return):
            whole.add(id(node.value))
        elif isinstance(node, ast.Dict):
            whole.update(id(v) for v in node.values)
    return sorted((n for n in ast.walk(record)
                   if isinstance(n, ast.Attribute) and n.attr == "requests"
                   and id(n) not in whole), key=lambda n: (n.lineno, n.col_offset))


def _at(lines: tuple[int, ...], n: int, fallback: int) -> int:
    """The cell line of line ``n`` (1-based) of a part whose lines stand at ``lines``."""
    return lines[n - 1] if 0 < n <= len(lines) else fallback


#: The function both halves of a hidden test call to draw its inputs, identically.
DRAW_NAME = "hidden_inputs"


def _draws(tree: ast.AST) -> list[ast.Call]:
    """The calls of :data:`DRAW_NAME` in ``tree``, in source order."""
    return sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Name) and n.func.id == DRAW_NAME)
        or (isinstance(n.func, ast.Attribute) and n.func.attr == DRAW_NAME))),
        key=lambda n: (n.lineno, n.col_offset))


def _unmatched_draws(parts: TestParts, record: ast.AST, judge: ast.AST
                     ) -> list[tuple[int, str]]:
    """A draw in one half that the other half does not make with the same arguments: the
    two would then judge different inputs."""
    mine = {ast.unparse(c): c for c in _draws(record)}
    theirs = {ast.unparse(c): c for c in _draws(judge)}
    out = []
    for text, call in mine.items():
        if text not in theirs:
            out.append((_at(parts.record_lines, call.lineno, parts.hidden_line),
                        f"the record part draws {text[:100]} but the judge makes no identical "
                        "call, so it would expect other inputs than the kernel was given; "
                        "copy the line into the judge"))
    for text, call in theirs.items():
        if text not in mine:
            out.append((_at(parts.judge_lines, call.lineno, parts.judge_line),
                        f"the judge draws {text[:100]} but the record part makes no "
                        "identical call, so the student's code never saw those inputs; copy "
                        "the line into the record part"))
    return out


def findings(parts: TestParts) -> list[tuple[int, str]]:
    """What keeps this cell from being judged outside the kernel: ``(line, message)`` each,
    ``line`` being the 1-based line of the cell's source to edit (0: the cell as a whole).
    A request log is recorded whole and read by the judge through ``course.hub.log_of``, so
    the log judged is the grader's."""
    if not parts.has_hidden:
        return [(0, "no hidden part; every graded cell is judged in the grader "
                    f"(add a hidden region with a record part that binds {RECORD_NAME!r}, "
                    "a '### JUDGE' line and the judge's asserts)")]
    if parts.legacy:
        return [(parts.hidden_line, "the hidden region has no '### JUDGE' line, so its "
                 "asserts would run in the student's kernel; put '### JUDGE' after the line "
                 f"that binds {RECORD_NAME!r}, with the asserts below it")]
    out: list[tuple[int, str]] = []
    try:
        record = syntax.parse(parts.record)
    except SyntaxError as exc:
        return [(_at(parts.record_lines, exc.lineno or 0, parts.hidden_line),
                 f"{exc.msg} in the record part")]
    try:
        judge = syntax.parse(parts.judge)
    except SyntaxError as exc:
        return [(_at(parts.judge_lines, exc.lineno or 0, parts.judge_line),
                 f"{exc.msg} in the judge")]
    for node in ast.walk(record):
        if isinstance(node, ast.Assert):
            out.append((_at(parts.record_lines, node.lineno, parts.hidden_line),
                        "an assert in the record part; expectations belong in the judge "
                        "(below '### JUDGE')"))
            break
    if RECORD_NAME not in _bound(record):
        out.append((parts.judge_line, f"the record part never binds {RECORD_NAME!r}; end it "
                    f"with {RECORD_NAME} = record(...) (course.observe.record)"))
    known = _bound(judge) | {RECORD_NAME} | set(dir(builtins))
    loads = [n for n in ast.walk(judge) if isinstance(n, ast.Name)
             and isinstance(n.ctx, ast.Load) and n.id not in known]
    if loads:
        first = min(loads, key=lambda n: (n.lineno, n.col_offset))
        free = sorted({n.id for n in loads})
        out.append((_at(parts.judge_lines, first.lineno, parts.judge_line),
                    f"the judge reads {', '.join(free)}, which only the kernel has; "
                    f"a judge sees {RECORD_NAME!r} and what it imports, so put the value "
                    f"in the record ({RECORD_NAME} = record(..., name=value)) and read "
                    f"{RECORD_NAME}[\"name\"]"))
    if not any(isinstance(n, ast.Assert) for n in ast.walk(judge)):
        out.append((parts.judge_line, "the judge asserts nothing"))
    out += _unmatched_draws(parts, record, judge)
    if reads := _log_reads(record):
        out.append((_at(parts.record_lines, reads[0].lineno, parts.hidden_line),
                    f"the record part reads {ast.unparse(reads[0])} in the kernel; record the "
                    "log whole (requests=api.requests) and read it in the judge with "
                    "course.hub.log_of"))
    logged = any(isinstance(n, ast.Attribute) and n.attr == "requests"
                 for n in ast.walk(record))
    if logged and "log_of" not in {n.id for n in ast.walk(judge) if isinstance(n, ast.Name)}:
        out.append((parts.judge_line, "the record part keeps a request log but the judge "
                    "never reads one through course.hub.log_of"))
    return out


def problems(parts: TestParts, where: str) -> list[str]:
    """:func:`findings` as lines ``"{where}: message"`` (``where:LINE`` when a line is
    known)."""
    return [f"{where}:{line}: {msg}" if line else f"{where}: {msg}"
            for line, msg in findings(parts)]


class _OutOfTime(BaseException):
    """Raised inside a judge that ran past its time (not an ``Exception``: no judge code
    catches it)."""


def _deadline(seconds: float):
    """A trace function that stops the judge's thread ``seconds`` from now (checked at
    every call and line of Python code the judge runs)."""
    end = time.monotonic() + seconds

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if time.monotonic() > end:
            raise _OutOfTime
        return trace

    return trace


#: The name under which a judge's messages show a value (see :class:`_ShownValues`).
SHOW_NAME = "__shown__"


class _ShownValues(ast.NodeTransformer):
    """Every value an assert's message (or a raised exception's first argument) formats in
    an f-string is shown through :func:`.boundary.shown`: cut short and marked, so what a
    record holds never reaches a message whole. Only messages change; what a judge
    compares is untouched."""

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        self.generic_visit(node)
        if node.msg is not None:
            node.msg = self._message(node.msg)
        return node

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.exc, ast.Call) and node.exc.args:
            node.exc.args[0] = self._message(node.exc.args[0])
        return node

    def _message(self, msg: ast.expr) -> ast.expr:
        for part in ast.walk(msg):
            if isinstance(part, ast.FormattedValue) and part.format_spec is None:
                part.value = ast.Call(ast.Name(SHOW_NAME, ast.Load()),
                                      [part.value, ast.Constant(part.conversion)], [])
                part.conversion = -1
        return msg


def compile_judge(judge: str, where: str) -> Any:
    """The judge's code, with its messages' values shown short (:class:`_ShownValues`)."""
    tree = _ShownValues().visit(syntax.parse(judge, f"<judge {where}>"))
    return syntax.compile_tree(ast.fix_missing_locations(tree), f"<judge {where}>")


def run(judge: str, rec: Any, where: str, seconds: float = JUDGE_SECONDS, seed: int = 0
        ) -> None:
    """Run ``judge`` on ``rec`` for at most ``seconds``, with ``seed`` as the submission's
    :func:`course.observe.hidden_seed`; raises :class:`JudgeFailed` with the student's
    message (the caller passes it through :func:`.boundary.judge_message`)."""
    from ...observe import seeded
    from .boundary import shown

    code = compile_judge(judge, where)
    with seeded(seed):  # outside the deadline: the seed is put back whatever the judge did
        _run(code, rec, seconds, shown)


def _run(code: Any, rec: Any, seconds: float, shown: Any) -> None:
    """Execute a compiled judge on ``rec`` under a deadline of ``seconds``."""
    previous = sys.gettrace()
    sys.settrace(_deadline(seconds))
    try:
        exec(code, {"__builtins__": builtins, "__name__": "__judge__", RECORD_NAME: rec,
                    SHOW_NAME: shown})
    except _OutOfTime:
        raise JudgeFailed(f"the hidden check ran past its {seconds:g} s on what the cell "
                          "recorded (are its results very large?)") from None
    except AssertionError as exc:
        raise JudgeFailed(str(exc) or "a hidden check failed") from None
    except Exception as exc:  # noqa: BLE001 - a record the judge cannot read fails the cell
        raise JudgeFailed(f"the recorded results could not be checked ({type(exc).__name__}: "
                          f"{(str(exc).splitlines() or [''])[0][:160]}); the cell's "
                          "functions returned something of an unexpected shape") from None
    finally:
        sys.settrace(previous)
