"""No test reads a name the notebook does not give the student.

A hidden test that reads ``store.slots`` when the notebook's API names only ``put``, ``get``
and ``render`` fails a correct store kept in any other attribute. This check follows, cell
by cell, which values come from the student's own code (a call of a function or class an
answer cell defines, an attribute of such a value, a name bound to one, a loop over one), and
lists every attribute a graded test cell reads on such a value that the student was never
shown: in a code span or code block of the notebook's markdown, or in its released code
(the answer cells' stubs, the demos and the visible tests).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .. import syntax
from .markers import strip_hidden
from .scripts import locate

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)


@dataclass(frozen=True)
class Unnamed:
    """An attribute a test reads on the student's object that the notebook never names."""

    grade_id: str
    attr: str
    line: int

    def __str__(self) -> str:
        return (f"{self.grade_id} line {self.line} reads .{self.attr} on the student's "
                "object, which the notebook never names")

    def located(self, root: Path, source_nb: nbformat.NotebookNode) -> str:
        """The problem at the authoring script line to edit, with what to do about it."""
        at = locate(root, source_nb, self.grade_id, self.line)
        where = f"{at} (cell {self.grade_id!r})" if at else f"{self.grade_id} line {self.line}"
        return (f"{where}: reads .{self.attr} on the student's object, which the notebook "
                f"never names; name it in the API text (a code span or block) or test "
                "through a name that is shown")


def _meta(cell: nbformat.NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _parse(source: str) -> ast.Module | None:
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        return syntax.parse("\n".join(lines))
    except SyntaxError:
        return None


def shown(nb: nbformat.NotebookNode) -> set[str]:
    """Every identifier the student is shown: markdown code, and each code cell but the
    graded tests as the release has it (answer regions removed)."""
    out: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for span in _CODE.findall(cell.source):
                out |= set(_IDENT.findall(span))
        elif cell.cell_type == "code" and not (_meta(cell).get("grade")
                                               and not _meta(cell).get("solution")):
            # a test cell names nothing: what it reads must be named elsewhere
            released = strip_hidden(cell.source)
            kept = []
            inside = False
            for line in released.splitlines():
                if "### BEGIN SOLUTION" in line:
                    inside = True  # the release has nbgrader's stub here
                    indent = line[:len(line) - len(line.lstrip())]
                    kept.append(f"{indent}raise NotImplementedError()")
                elif "### END SOLUTION" in line:
                    inside = False
                elif not inside:
                    kept.append(line)
            out |= _code_names("\n".join(kept))
    return out


def _code_names(source: str) -> set[str]:
    """Identifiers of code, not of its strings or comments (a docstring's prose names
    nothing); a cell that does not parse as it stands gives its tokens."""
    tree = _parse(source)
    if tree is None:
        return set(_IDENT.findall(source))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            out.add(node.arg)
    return out


def _defined(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


class _Reads(ast.NodeVisitor):
    """Walks one cell in order: taints names bound to the student's values and reports
    attributes read on them."""

    def __init__(self, tainted: set[str], report: bool) -> None:
        self.tainted = tainted
        self.report = report
        self.found: list[tuple[str, int]] = []

    def student(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.tainted
        if isinstance(node, ast.Call):
            return self.student(node.func)
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            return self.student(node.value)
        if isinstance(node, ast.Await):
            return self.student(node.value)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return any(self.student(e) for e in node.elts)
        return False

    def _bind(self, target: ast.AST, value: bool) -> None:
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                (self.tainted.add if value else self.tainted.discard)(name.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for t in node.targets:
            self._bind(t, self.student(node.value))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._bind(node.target, self.student(node.value))

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._bind(node.target, self.student(node.iter))
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._bind(item.optional_vars, self.student(item.context_expr))
        for stmt in node.body:
            self.visit(stmt)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.report and self.student(node.value):
            self.found.append((node.attr, node.lineno))
        self.generic_visit(node)


#: What a value the student returns carries whatever they wrote: the methods of Python's
#: own types (a returned dict's ``get``, a string's ``strip``).
BUILTIN_MEMBERS = frozenset(
    name for t in (str, bytes, int, float, bool, list, tuple, dict, set, frozenset, object)
    for name in dir(t))


def sdk_fields() -> frozenset[str]:
    """The fields of the SDK's own types (a reply the student's code passes back is the
    SDK's ``Message``, whatever wrapped it)."""
    import anthropic.types

    return frozenset(f for obj in vars(anthropic.types).values()
                     for f in (getattr(obj, "model_fields", None) or {}))


def unnamed(source_nb: nbformat.NotebookNode) -> list[Unnamed]:
    """Every attribute a graded test cell reads on the student's values without the
    notebook naming it (empty when the tests read only what the notebook shows)."""
    known = shown(source_nb) | BUILTIN_MEMBERS | sdk_fields()
    tainted: set[str] = set()
    out: list[Unnamed] = []
    for cell in source_nb.cells:
        if cell.cell_type != "code":
            continue
        tree = _parse(cell.source)
        if tree is None:
            continue
        meta = _meta(cell)
        if meta.get("solution"):
            tainted |= _defined(tree)
            continue
        test = bool(meta.get("grade"))
        walker = _Reads(tainted, report=test)
        for stmt in tree.body:
            walker.visit(stmt)
        for attr, line in walker.found:
            if attr not in known and not attr.startswith("__"):
                out.append(Unnamed(meta.get("grade_id", "?"), attr, line))
    return out
