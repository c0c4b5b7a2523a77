"""The shape leak check: no solution's code may stand, renamed or reworded, where students read.

Comparing lines misses a leak whose names were changed. This check compares *shapes*: each
statement is parsed, every identifier, attribute name, argument name and constant is erased,
and the result is compared over windows of one to three consecutive statements. A window of
a solution that also occurs in the student-side support package (``course/`` without
``course/grading/``) or in a released notebook is a leak, however it was renamed. Windows
smaller than :data:`MIN_NODES` syntax nodes say too little (``x = f(y); return x``) and are
not compared, and neither is a single simple statement (an idiom such as joining text
blocks) or a run of field declarations, which every class has. At 16 nodes the check is
silent on this tree and finds the reworded agent loops that the course's worlds once held
(``history.append({"role": "assistant", ...})`` followed by a fresh results list is 19
nodes).
"""

from __future__ import annotations

import ast
import copy
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .. import syntax
from ..runner import assignments, read_notebook
from . import markers

#: A window must hold at least this many AST nodes to count as evidence.
MIN_NODES = 16
#: Windows of up to this many consecutive statements are compared.
MAX_WINDOW = 3


@dataclass(frozen=True)
class Window:
    """A run of statements: where it stands, its size, and its erased shape's digest."""

    where: str
    first_line: int
    last_line: int
    nodes: int
    digest: str


class _Erase(ast.NodeTransformer):
    """Replace every name and constant with a placeholder, keeping only the structure."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = "_"
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.copy_location(ast.Constant(value="_"), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg, node.annotation = "_", None
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        self.generic_visit(node)
        node.arg = "_" if node.arg else None
        return node

    def _named(self, node: ast.AST) -> ast.AST:
        self.generic_visit(node)
        node.name = "_"  # type: ignore[attr-defined]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _named

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        self.generic_visit(node)
        node.name = "_" if node.name else None
        return node

    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        # A docstring or bare string says nothing about the code's shape.
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return ast.copy_location(ast.Pass(), node)
        self.generic_visit(node)
        return node


def _shape(stmt: ast.stmt) -> tuple[str, int]:
    erased = _Erase().visit(copy.deepcopy(stmt))
    return ast.dump(erased, annotate_fields=False), sum(1 for _ in ast.walk(erased))


_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Try,
             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)


def _plain(value: ast.AST | None) -> bool:
    """A value that says nothing about an algorithm: a name, a literal, an attribute, an
    empty or literal container, or a call of a name with such arguments (``field(...)``)."""
    if value is None or isinstance(value, ast.Name | ast.Constant | ast.Attribute):
        return True
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return all(_plain(e) for e in value.elts)
    if isinstance(value, ast.Dict):
        return all(_plain(k) and _plain(v) for k, v in zip(value.keys, value.values,
                                                            strict=True))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return all(_plain(a) for a in value.args) and all(_plain(k.value)
                                                          for k in value.keywords)
    return False


def _declaration(stmt: ast.stmt) -> bool:
    """A field or attribute declaration (``x: int = 0``, ``self.log = []``), which every
    class has and no answer is made of."""
    if isinstance(stmt, ast.AnnAssign):
        return _plain(stmt.value)
    if isinstance(stmt, ast.Assign):
        return _plain(stmt.value)
    return isinstance(stmt, ast.Pass)


def _evidence(run: list[ast.stmt]) -> bool:
    """Whether a window can show a leak: one simple statement, or nothing but
    declarations, is an idiom (``"".join(b.text for b in ...)``), not an answer."""
    if all(_declaration(s) for s in run):
        return False
    return len(run) > 1 or isinstance(run[0], _COMPOUND)


def _bodies(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every statement list in the tree: module, function, class, loop and branch bodies."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value


def windows(source: str, where: str, lines: set[int] | None = None) -> list[Window]:
    """The shape windows of ``source``; with ``lines``, only windows lying wholly on those
    line numbers. Source that does not parse yields no windows."""
    try:
        tree = syntax.parse(source)
    except SyntaxError:
        return []
    out = []
    for body in _bodies(tree):
        shapes = [_shape(s) for s in body]
        for size in range(1, MAX_WINDOW + 1):
            for i in range(len(body) - size + 1):
                run = body[i:i + size]
                first, last = run[0].lineno, run[-1].end_lineno or run[-1].lineno
                if lines is not None and not all(n in lines for n in range(first, last + 1)):
                    continue
                nodes = sum(n for _, n in shapes[i:i + size])
                if nodes < MIN_NODES or not _evidence(run):
                    continue
                digest = hashlib.sha1("\n".join(d for d, _ in shapes[i:i + size])
                                      .encode()).hexdigest()
                out.append(Window(where, first, last, nodes, digest))
    return out


def solution_windows(path: Path, nb: nbformat.NotebookNode) -> list[Window]:
    """The windows that lie inside the solution regions of a source notebook's code cells."""
    out = []
    for n, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        where = f"{path} cell {cell.get('id', n)}"
        labelled = markers.split(cell.source, where)
        inside = {ln.number for ln in labelled if ln.region == "solution" and not ln.marker}
        if not inside:
            continue
        # Marker lines become blank, so line numbers stay those of the cell.
        code = "\n".join("" if ln.marker or ln.region == "hidden" else ln.text
                         for ln in labelled)
        out += windows(code, where, inside)
    return out


def exposed_windows(root: Path) -> list[Window]:
    """The windows of everything a student can read: the student side of ``course/`` and
    every code cell of ``release/``."""
    out = []
    for py in sorted((root / "course").rglob("*.py")):
        rel = py.relative_to(root)
        if rel.parts[:2] == ("course", "grading"):
            continue
        out += windows(py.read_text(encoding="utf-8"), str(rel))
    for nb_path in sorted((root / "release").rglob("*.ipynb")):
        rel = nb_path.relative_to(root)
        for n, cell in enumerate(read_notebook(nb_path).cells):
            if cell.cell_type == "code":
                out += windows(cell.source, f"{rel} cell {cell.get('id', n)}")
    return out


def leaks(root: Path) -> list[tuple[Window, Window]]:
    """(solution window, exposed window) pairs of the same shape, largest first, one per
    solution window."""
    exposed: dict[str, Window] = {}
    for w in exposed_windows(root):
        exposed.setdefault(w.digest, w)
    found: dict[tuple[str, int], tuple[Window, Window]] = {}
    for a in assignments(root):
        for path in sorted((root / "source" / a).glob("*.ipynb")):
            for w in solution_windows(path.relative_to(root), read_notebook(path)):
                hit = exposed.get(w.digest)
                if hit is not None:
                    found.setdefault((w.where, w.first_line), (w, hit))
    return sorted(found.values(), key=lambda pair: -pair[0].nodes)
