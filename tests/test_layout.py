"""The two sides of ``course/``: the student side never needs the instructor side.

Students get ``course/`` without ``course/grading/`` (see ``course export``). So no
student-side module may import ``course.grading``, and a student copy must still import
every student-side module and run every release notebook.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from course.grading.authoring import export
from course.grading.execution import quickrun

#: ``python -m course`` is the instructor's entry point; in a student copy it says so and
#: exits (its ImportError fallback), so it is the one student-side file that names grading.
ENTRY_POINT = Path("course/__main__.py")


def _student_modules(root: Path) -> list[Path]:
    return [p for p in sorted((root / "course").rglob("*.py"))
            if p.relative_to(root).parts[:2] != ("course", "grading")
            and p.relative_to(root) != ENTRY_POINT]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = path.with_suffix("").parts
    top = len(parts) - 1 - parts[::-1].index("course")
    package = ".".join(parts[top:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return found


def test_no_student_side_module_imports_the_instructor_side(root):
    modules = _student_modules(root)
    assert len(modules) > 10
    for path in modules:
        bad = {m for m in _imports(path) if m == "course.grading" or
               m.startswith("course.grading.")}
        assert not bad, f"{path.relative_to(root)} imports {sorted(bad)}"


def test_the_import_scanner_sees_a_relative_import_of_grading(tmp_path):
    pkg = tmp_path / "course" / "worlds"
    pkg.mkdir(parents=True)
    bad = pkg / "sneaky.py"
    bad.write_text("from ..grading import markers\n")
    assert "course.grading.markers" in _imports(bad)


@pytest.mark.slow
def test_a_student_copy_runs_every_release_notebook(root, tmp_path):
    """Export, then run each release notebook with the copy's own course/ on the path: the
    first cell to fail must be an answer stub (they raise NotImplementedError, which is the
    student's to replace), and ``course`` must come from the copy."""
    target = tmp_path / "student"
    export.export_student(root, target)
    assert not (target / "course" / "grading").exists()
    paths = sorted((target / "release").rglob("*.ipynb"))
    assert paths
    notebooks = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(
            f"import course\nassert course.__file__.startswith({str(target)!r}), course.__file__"))
        notebooks.append(nb)
    for path, cells in zip(paths, quickrun.run_variants(notebooks, target), strict=True):
        failed = [c for c in cells if not c.passed]
        assert failed, f"{path.name}: no cell failed, so the stubs are gone"
        assert failed[0].error.startswith("NotImplementedError"), \
            f"{path.name}: code cell {failed[0].index} failed first: {failed[0].error}"
        assert cells[-1].passed, f"{path.name}: {cells[-1].error}"


def _cycles(modules: dict[str, Path]) -> list[list[str]]:
    """The import cycles among ``modules`` (name -> file), imports inside functions
    included: each strongly connected group of two or more modules, sorted."""
    graph = {m: {i for i in _imports(p) if i in modules and i != m}
             for m, p in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _modules(top: Path) -> dict[str, Path]:
    out = {}
    for p in sorted(top.rglob("*.py")):
        name = ".".join(p.relative_to(top.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = p
    return out


def test_no_two_modules_of_course_import_each_other(root):
    """One job per module, layered: a module never imports one that imports it back, even
    from inside a function (the grade and pre-flight modules once did)."""
    cycles = _cycles(_modules(root / "course"))
    assert not cycles, f"import cycles in course/: {cycles}; move what both need to a " \
        "module below them"


def test_the_cycle_finder_finds_a_cycle_through_a_local_import(tmp_path):
    pkg = tmp_path / "course"
    pkg.mkdir()
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .c import g\n")
    (pkg / "c.py").write_text("import course.a\n")
    (pkg / "d.py").write_text("from . import a\n")
    assert _cycles(_modules(pkg)) == [["course.a", "course.b", "course.c"]]
